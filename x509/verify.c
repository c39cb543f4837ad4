/*
 * Certificate path building and validation (RFC 5280 6.1, simplified to
 * what TLS needs: no policies, no revocation).
 *
 * Building: depth-first from the leaf. At each step a trust anchor whose
 * subject equals the current issuer name closes the path (anchors are
 * tried before the peer's certificates, so a root sent by the peer is
 * never needed); otherwise each unused peer certificate with that subject
 * is tried as the next intermediate. Every complete path is validated;
 * the first valid one wins (at most MAX_ATTEMPTS steps). If all fail, the error of the longest failing
 * path is returned (ties: the first found), or HS_ERR_X509_UNKNOWN_ISSUER
 * when no path reaches an anchor (or a peer certificate's own parse
 * error, e.g. an unknown critical extension, when it could have been part
 * of one).
 *
 * Validation of path[0] (leaf) .. path[n-1] (anchor):
 *   - each signature with the next certificate's key;
 *   - validity of every certificate but the anchor at the given time
 *     (an anchor is trusted as configured, RFC 5280 6.1.1 (d));
 *   - every issuer a CA: basicConstraints cA (an anchor without the
 *     extension, such as a v1 root, is accepted), keyUsage keyCertSign
 *     when present;
 *   - pathLenConstraint: non-self-issued intermediates below each CA;
 *   - name constraints of every CA (the anchor's too) on the certificates
 *     below it, except self-issued intermediates (6.1.4 (b));
 *   - extendedKeyUsage, when present, allows the purpose in every
 *     certificate but the anchor (as browsers chain it), anyExtendedKeyUsage
 *     accepted; the leaf's keyUsage, when present, has digitalSignature
 *     (TLS 1.3 signs with the leaf key);
 *   - the host name or IP address against the leaf's subjectAltName.
 *
 * Implementation notes: all on the stack (HS_X509_MAX_CHAIN parsed
 * certificates); nothing allocated; everything is public data.
 */
#include "x509/x509.h"

#include <string.h>
#include <time.h>

#define MAX_PATH (HS_X509_MAX_CHAIN + 1)
/*
 * Path attempts per verify: peer certificates sharing one name could
 * otherwise make the search try every ordering of them (9! paths, each
 * with signature checks). Real chains need a handful.
 */
#define MAX_ATTEMPTS 64

struct build {
	const struct hs_x509_store *store;
	const struct hs_x509_verify_opts *opts;
	int64_t now;
	struct x509_cert pool[HS_X509_MAX_CHAIN]; /* [0] is the leaf */
	int pool_ok[HS_X509_MAX_CHAIN], used[HS_X509_MAX_CHAIN];
	size_t n_pool;
	int pool_err; /* parse error of a peer intermediate, if any */
	const struct x509_cert *path[MAX_PATH];
	int err;      /* error of the longest failing path so far */
	size_t err_len;
	int fail_at, err_depth; /* the failing certificate's place in the path (0: leaf) */
	unsigned attempts; /* extend() calls and complete paths validated */
};

static int same(struct reader a, struct reader b)
{
	return a.len == b.len && memcmp(a.p, b.p, a.len) == 0;
}

static int self_issued(const struct x509_cert *c)
{
	return same(c->issuer, c->subject);
}

static int check_time(const struct x509_cert *c, int64_t now)
{
	ENSURE(now >= c->not_before, HS_ERR_X509_NOT_YET_VALID);
	ENSURE(now <= c->not_after, HS_ERR_X509_EXPIRED);
	return 0;
}

/* path[i] issues path[i - 1]: is it allowed to? */
static int check_issuer(const struct x509_cert *ca, int is_anchor)
{
	if (!is_anchor || (ca->has & X509_HAS_BC))
		ENSURE(ca->is_ca, HS_ERR_X509_NOT_CA);
	if (ca->has & X509_HAS_KU)
		ENSURE(ca->key_usage & X509_KU_KEY_CERT_SIGN, HS_ERR_X509_KEY_USAGE);
	return 0;
}

/* pathLenConstraint of path[j]: non-self-issued intermediates below it. */
static int check_path_len(const struct x509_cert *const *path, size_t j)
{
	int below = 0;

	if (path[j]->path_len < 0)
		return 0;
	for (size_t k = 1; k < j; k++)
		below += !self_issued(path[k]);
	return below <= path[j]->path_len ? 0 : HS_ERR_X509_PATH_LEN;
}

static int check_nc(const struct x509_cert *const *path, size_t j)
{
	for (size_t k = 0; k < j; k++) {
		if (k > 0 && self_issued(path[k]))
			continue;
		TRY(x509_check_nc(path[j], path[k]));
	}
	return 0;
}

static int check_leaf(const struct x509_cert *leaf, const struct hs_x509_verify_opts *o)
{
	if (leaf->has & X509_HAS_KU)
		ENSURE(leaf->key_usage & X509_KU_DIGITAL_SIGNATURE, HS_ERR_X509_KEY_USAGE);
	if (o->host != NULL)
		TRY(x509_match_host(leaf, o->host));
	return 0;
}

static int check_eku(const struct x509_cert *c, enum hs_x509_purpose p)
{
	unsigned want = p == HS_X509_CLIENT_AUTH ? X509_EKU_CLIENT : X509_EKU_SERVER;

	if (!(c->has & X509_HAS_EKU))
		return 0;
	return c->eku & (want | X509_EKU_ANY) ? 0 : HS_ERR_X509_EKU;
}

/* path[0 .. n): the last one is the anchor. Top-down, as RFC 5280 6.1. */
static int validate_at(const struct build *b, size_t n, int *at)
{
	const struct x509_cert *const *path = b->path;

	for (size_t j = n - 1; j >= 1; j--) {
		const struct x509_cert *c = path[j - 1];
		*at = (int)j; /* the issuer's own checks */
		TRY(check_issuer(path[j], j == n - 1));
		TRY(check_path_len(path, j));
		*at = (int)j - 1; /* c's, under that issuer */
		TRY(x509_check_sig(c, path[j]));
		TRY(check_time(c, b->now));
		TRY(check_eku(c, b->opts->purpose));
		TRY(check_nc(path, j));
	}
	*at = 0;
	return check_leaf(path[0], b->opts);
}

static int validate(struct build *b, size_t n) { return validate_at(b, n, &b->fail_at); }

static void note_failure(struct build *b, int err, size_t len)
{
	if (b->err == 0 || len > b->err_len) {
		b->err = err;
		b->err_len = len;
		b->err_depth = b->fail_at;
	}
}

static int is_anchor(const struct build *b, const struct x509_cert *c)
{
	const struct x509_cert *a;

	for (size_t i = 0; (a = x509_store_at(b->store, i)) != NULL; i++)
		if (same(a->der, c->der))
			return 1;
	return 0;
}

/* path[0 .. depth) is built; find issuers of path[depth - 1]. */
static int extend(struct build *b, size_t depth)
{
	const struct x509_cert *cur = b->path[depth - 1], *a;
	int err;

	if (++b->attempts > MAX_ATTEMPTS)
		return HS_ERR_X509_UNKNOWN_ISSUER;
	/* a peer intermediate that is itself trusted ends the path */
	if (depth > 1 && is_anchor(b, cur)) {
		err = validate(b, depth);
		if (err == 0)
			return 0;
		note_failure(b, err, depth);
	}
	for (size_t i = 0; (a = x509_store_at(b->store, i)) != NULL; i++) {
		if (!same(a->subject, cur->issuer))
			continue;
		b->path[depth] = a;
		if (++b->attempts > MAX_ATTEMPTS)
			return HS_ERR_X509_UNKNOWN_ISSUER;
		err = validate(b, depth + 1);
		if (err == 0)
			return 0;
		note_failure(b, err, depth + 1);
	}
	if (depth + 1 >= MAX_PATH)
		return HS_ERR_X509_UNKNOWN_ISSUER;
	for (size_t i = 1; i < b->n_pool; i++) {
		if (!b->pool_ok[i] || b->used[i] || !same(b->pool[i].subject, cur->issuer))
			continue;
		b->used[i] = 1;
		b->path[depth] = &b->pool[i];
		err = extend(b, depth + 1);
		b->used[i] = 0;
		if (err == 0)
			return 0;
	}
	return HS_ERR_X509_UNKNOWN_ISSUER;
}

/* pool[0] (the leaf) is parsed; certs[0 .. n) become pool[1 ..]. */
static int run(struct build *b, const uint8_t *const *certs, const size_t *lens, size_t n)
{
	b->pool_ok[0] = 1;
	for (size_t i = 0; i < n; i++) {
		int err = x509_cert_parse(&b->pool[i + 1], certs[i], lens[i]);
		b->pool_ok[i + 1] = err == 0;
		if (err != 0 && b->pool_err == 0)
			b->pool_err = err;
	}
	b->n_pool = n + 1;
	b->path[0] = &b->pool[0];
	/* the leaf itself trusted (a self-signed certificate, say) */
	b->err_depth = -1; /* no certificate to blame: no path to an anchor */
	if (is_anchor(b, &b->pool[0])) {
		b->err_depth = 0;
		TRY(check_time(&b->pool[0], b->now));
		TRY(check_eku(&b->pool[0], b->opts->purpose));
		return check_leaf(&b->pool[0], b->opts);
	}
	if (extend(b, 1) == 0)
		return 0;
	if (b->err != 0)
		return b->err;
	b->err_depth = -1;
	return b->pool_err != 0 ? b->pool_err : HS_ERR_X509_UNKNOWN_ISSUER;
}

int x509_verify_leaf(const struct hs_x509_store *s, const struct x509_cert *leaf,
			const uint8_t *const *certs, const size_t *lens, size_t n,
			const struct hs_x509_verify_opts *opts, int *depth)
{
	struct build b;
	int err;

	ENSURE(s != NULL && leaf != NULL && opts != NULL && (n == 0 || (certs != NULL && lens != NULL)),
	       HS_ERR_ARG);
	ENSURE(n < HS_X509_MAX_CHAIN, HS_ERR_X509_CHAIN_TOO_LONG);
	memset(&b, 0, sizeof(b));
	b.store = s;
	b.opts = opts;
	b.now = opts->time != 0 ? opts->time : (int64_t)time(NULL);
	b.pool[0] = *leaf;
	err = run(&b, certs, lens, n);
	if (depth != NULL)
		*depth = err != 0 ? b.err_depth : -1;
	return err;
}

int hs_x509_verify(const struct hs_x509_store *s, const uint8_t *const *certs, const size_t *lens,
		   size_t n, const struct hs_x509_verify_opts *opts)
{
	struct x509_cert leaf;

	ENSURE(s != NULL && certs != NULL && lens != NULL && opts != NULL && n >= 1,
	       HS_ERR_ARG);
	ENSURE(n <= HS_X509_MAX_CHAIN, HS_ERR_X509_CHAIN_TOO_LONG);
	TRY(x509_cert_parse(&leaf, certs[0], lens[0]));
	return x509_verify_leaf(s, &leaf, certs + 1, lens + 1, n - 1, opts, NULL);
}
