/*
 * Proves rand_bytes() (crypto/rand.c): small draws come from the
 * per-thread buffer (one getrandom call for many draws, counted through
 * -Wl,--wrap=getrandom), the key is renewed from the kernel after about
 * 1 MiB, large requests go to the kernel, a child after fork(2) keys
 * itself from the kernel and never repeats its parent's output, threads
 * get different output, and many draws are all distinct with a sane bit
 * balance.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "crypto/rand.h"
#include "testutil.h"

static unsigned long kernel_calls;

ssize_t __real_getrandom(void *buf, size_t len, unsigned int flags);
ssize_t __wrap_getrandom(void *buf, size_t len, unsigned int flags);
ssize_t __wrap_getrandom(void *buf, size_t len, unsigned int flags)
{
	kernel_calls++;
	return __real_getrandom(buf, len, flags);
}

static void draw(void *buf, size_t len)
{
	assert_int_equal(rand_bytes(buf, len), 0);
}

static void test_small_draws_use_the_buffer(void **state)
{
	uint8_t b[32];
	unsigned long before;

	(void)state;
	draw(b, 1); /* the thread's first use keys it */
	before = kernel_calls;
	for (int i = 0; i < 200; i++)
		draw(b, sizeof(b));
	/* 6,400 bytes: three refills of 2,016 bytes each, none from the kernel */
	assert_int_equal(kernel_calls, before);
	draw(b, 0);
	assert_int_equal(kernel_calls, before);
}

static void test_large_requests_go_to_the_kernel(void **state)
{
	uint8_t big[4096], zero[4096] = { 0 };
	unsigned long before = kernel_calls;

	(void)state;
	draw(big, 257);
	assert_true(kernel_calls > before);
	before = kernel_calls;
	draw(big, sizeof(big));
	assert_true(kernel_calls > before);
	assert_memory_not_equal(big, zero, sizeof(big));
	before = kernel_calls;
	draw(big, 256); /* the largest buffered draw */
	assert_int_equal(kernel_calls, before);
}

static void test_key_renewed_from_the_kernel(void **state)
{
	uint8_t b[256];
	unsigned long before;

	(void)state;
	draw(b, 1);
	before = kernel_calls;
	/* 1.5 MiB in buffered draws: the key comes from the kernel again
	 * after 512 refills (~1 MiB), not on every refill */
	for (int i = 0; i < 6144; i++)
		draw(b, sizeof(b));
	assert_true(kernel_calls >= before + 1);
	assert_true(kernel_calls <= before + 2);
}

static void test_fork_child_never_repeats_parent(void **state)
{
	uint8_t mine[64], childs[64];
	int fds[2];
	pid_t pid;
	int status;

	(void)state;
	draw(mine, 16); /* the parent's buffer holds output now */
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		unsigned long before = kernel_calls;
		uint8_t b[64];
		int ok = rand_bytes(b, sizeof(b)) == 0 && kernel_calls == before + 1;

		close(fds[0]);
		if (!ok)
			memset(b, 0, sizeof(b));
		_exit(write(fds[1], b, sizeof(b)) == (ssize_t)sizeof(b) ? 0 : 1);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], childs, sizeof(childs)), (ssize_t)sizeof(childs));
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	draw(mine, sizeof(mine));
	/* without the wipe on fork the child would print the parent's next bytes */
	assert_memory_not_equal(mine, childs, sizeof(mine));
	static const uint8_t zero[64];
	assert_memory_not_equal(childs, zero, sizeof(childs)); /* it re-keyed once */
}

#define THREADS 4

static void *thread_draw(void *arg)
{
	return rand_bytes(arg, 64) == 0 ? arg : NULL;
}

static void test_threads_differ(void **state)
{
	uint8_t out[THREADS + 1][64];
	pthread_t t[THREADS];

	(void)state;
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, thread_draw, out[i]), 0);
	draw(out[THREADS], 64);
	for (int i = 0; i < THREADS; i++) {
		void *r;

		assert_int_equal(pthread_join(t[i], &r), 0);
		assert_ptr_equal(r, out[i]);
	}
	for (int i = 0; i <= THREADS; i++)
		for (int j = i + 1; j <= THREADS; j++)
			assert_memory_not_equal(out[i], out[j], 64);
}

#define DRAWS 20000

static int cmp16(const void *a, const void *b)
{
	return memcmp(a, b, 16);
}

static void test_many_draws_distinct_and_balanced(void **state)
{
	uint8_t(*d)[16] = malloc(DRAWS * 16);
	unsigned long ones = 0;

	(void)state;
	assert_non_null(d);
	for (int i = 0; i < DRAWS; i++)
		draw(d[i], 16);
	for (int i = 0; i < DRAWS; i++)
		for (int j = 0; j < 16; j++)
			ones += (unsigned long)__builtin_popcount(d[i][j]);
	/* 2,560,000 bits: the mean is 1,280,000, one standard deviation 800 */
	assert_true(ones > 1280000 - 8000 && ones < 1280000 + 8000);
	qsort(d, DRAWS, 16, cmp16);
	for (int i = 1; i < DRAWS; i++)
		assert_memory_not_equal(d[i - 1], d[i], 16);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_draws_use_the_buffer),
		cmocka_unit_test(test_large_requests_go_to_the_kernel),
		cmocka_unit_test(test_key_renewed_from_the_kernel),
		cmocka_unit_test(test_fork_child_never_repeats_parent),
		cmocka_unit_test(test_threads_differ),
		cmocka_unit_test(test_many_draws_distinct_and_balanced),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
