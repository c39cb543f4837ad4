/*
 * A main() for the fuzz targets in builds without libFuzzer (gcc, the
 * sanitizer build): runs LLVMFuzzerTestOneInput once on every file named
 * on the command line, or on every file of a directory named. The
 * committed corpus (seeds and the inputs of fixed crashes) thereby runs
 * as a regression test in every build. Exit 0 when every input ran, 1 if
 * one could not be read, 77 (skip) with no input at all.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	static uint8_t buf[1 << 20];
	size_t n;

	if (f == NULL) {
		fprintf(stderr, "replay: cannot open %s\n", path);
		return 1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	(void)LLVMFuzzerTestOneInput(buf, n);
	return 0;
}

static int run_path(const char *path, size_t *count)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	char sub[4096];
	int rc = 0;

	if (stat(path, &st) != 0)
		return run_file(path);
	if (!S_ISDIR(st.st_mode)) {
		(*count)++;
		return run_file(path);
	}
	d = opendir(path);
	if (d == NULL)
		return 1;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		rc |= run_path(sub, count);
	}
	closedir(d);
	return rc;
}

int main(int argc, char **argv)
{
	size_t count = 0;
	int rc = 0;

	for (int i = 1; i < argc; i++)
		rc |= run_path(argv[i], &count);
	printf("replay: %zu inputs\n", count);
	return rc ? 1 : count == 0 ? 77 : 0;
}
