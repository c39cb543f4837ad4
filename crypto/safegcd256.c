/*
 * Inversion modulo an odd m < 2^256 by Bernstein-Yang "safegcd" divsteps:
 * the one home of the 256-bit inversion (X25519/Ed25519's fe_invert,
 * P-256's p256_fe_inv and p256_sc_inv_mont).
 *
 * Implementation notes:
 * - Numbers are five signed 62-bit limbs (struct s62: sum v[i] 2^(62 i);
 *   after an update v[0..3] are in [0, 2^62) and v[4] carries the sign),
 *   updated by crypto/safegcd.h's functions (shared with bn_mod_inv).
 *   The modulus comes as a constant descriptor (struct sg256_mod): its
 *   limbs, which may be negative or zero (2^255 - 19 is { -19, 0, 0, 0,
 *   128 }, P-256's p has a zero limb), and 1/m mod 2^62.
 * - The divstep is the variant with delta starting at 1/2, kept as
 *   zeta = -(delta + 1/2): (zeta, f, g) -> if zeta < 0 and g odd:
 *   (-zeta - 2, g, (g - f) / 2), else (zeta - 1, f, (g + (g odd) f) / 2).
 *   For a modulus below 2^256 and 0 <= g < m, 590 divsteps are enough to
 *   reach g = 0 (the convex-hull bound of Wuille's safegcd-bounds
 *   analysis, the count libsecp256k1 uses for its 256-bit moduli): 10
 *   batches of 59.
 * - A batch runs its 59 divsteps on the low words of f and g only and
 *   returns their matrix scaled by 2^62 (it starts at 8 = 2^3); the matrix
 *   is then applied to the full f, g (an exact division by 2^62) and to
 *   d, e, where d x = f and e x = g (mod m) are kept in (-2m, m): a
 *   multiple of m chosen with 1/m mod 2^62 makes the division exact, and
 *   adding m once more where d or e is negative keeps the range.
 * - At the end f = +-1 (or f = m, d = 0 when x = 0, which gives 0, as
 *   Fermat's x^(m-2) does), and 1/x = +-d, brought into [0, m).
 * - The three moduli's descriptors are constants of this file. For
 *   2^255 - 19, sg256_inv runs a copy of the inlined code with the
 *   descriptor as a compile-time constant: its three zero limbs'
 *   products vanish (two products per column instead of five): 3.84k
 *   TSC cycles (median) against 3.95k when one copy served all three
 *   moduli, which was slower for P-256's too (Intel Xeon, December
 *   2026). P-256's p (one zero limb) and n gained nothing
 *   measurable from a copy of their own: they take the generic one.
 * - bn_mod_inv (crypto/bignum.c) serves arbitrary sizes (RSA's CRT
 *   halves, P-384) with the same divstep batch (sg_divsteps_59) and the
 *   same updates (crypto/safegcd.h: 62-bit limbs, d and e kept in
 *   (-2m, m), inlined here with five limbs). It keeps the original
 *   divstep (delta starting at 1), because Bernstein and Yang's theorem
 *   11.2 bounds that variant's count for every size, while the
 *   half-delta variant's 590 is a computed bound for 256 bits. The two
 *   variants update delta alike and differ in its start, so one batch
 *   text serves both (two constants, see the batch).
 * - Constant time: the C divstep's masks sit behind barriers (no branch
 *   can come back), the x86-64 batch selects with CMOV, every loop has a
 *   fixed count, no index depends on x; the specialised copy is chosen by
 *   the (public) modulus. What may leak: nothing. The tests compare the
 *   C and CMOV batches with each other and with Fermat or bn_mod_inv
 *   (tests/crypto/test_x25519.c, test_p256.c, test_rsa.c); ctgrind
 *   (ct_25519, ct_p256, ct_rsa) and dudect (the inversion targets) check
 *   the timing.
 * - The working set is wiped.
 */
#include "crypto/safegcd256.h"

#include "crypto/safegcd.h"

#include "base/wipe.h"
#include "crypto/cpu.h"
#include "crypto/ct.h"

#define ALWAYS_INLINE inline __attribute__((always_inline))
#define M62 SG_M62
#define BATCHES 10 /* of 59 divsteps: 590 */

/* a 256-bit value from four 64-bit limbs into five 62-bit ones */
#define LIMBS62(a0, a1, a2, a3)                                                           \
	{ (int64_t)((a0) & M62), (int64_t)((((a0) >> 62) | ((a1) << 2)) & M62),            \
	  (int64_t)((((a1) >> 60) | ((a2) << 4)) & M62),                                   \
	  (int64_t)((((a2) >> 58) | ((a3) << 6)) & M62), (int64_t)((a3) >> 56) }

const struct sg256_mod sg256_p25519 = {
	.m = { -19, 0, 0, 0, 128 }, /* 2^255 - 19 = -19 + 128 2^(4 62) */
	.minv = UINT64_C(0x39435e50d79435e5),
};

/* -1 + 2^34 2^62 + (2^6 - 2^38) 2^(3 62) + 2^8 2^(4 62): limb 2 is zero */
const struct sg256_mod sg256_p256_p = {
	.m = { -1, INT64_C(1) << 34, 0, 64 - (INT64_C(1) << 38), 256 },
	.minv = UINT64_C(0x3fffffffffffffff),
};

const struct sg256_mod sg256_p256_n = {
	.m = LIMBS62(UINT64_C(0xf3b9cac2fc632551), UINT64_C(0xbce6faada7179e84),
		     UINT64_C(0xffffffffffffffff), UINT64_C(0xffffffff00000000)),
	.minv = UINT64_C(0x332e375511ff43b1),
};

struct s62 {
	int64_t v[5];
};

/*
 * ---- the divstep batch (also bn_mod_inv's, through sg_divsteps_59) ----
 *
 * Both variants update delta the same way (if delta > 0 and g odd:
 * 1 - delta, else 1 + delta); they differ in the start (1/2 here, 1 for
 * bn_mod_inv) and so in how delta is kept in a register: zeta = -(delta +
 * 1/2) here, zeta = 1 - 2 delta there. In both, zeta < 0 iff delta > 0,
 * and the swap case maps zeta to ~zeta + K - B, the other to zeta - B:
 * K = 0, B = 1 here, K = 3, B = 2 for the original variant.
 */

/* a batch's matrix into t (u, v, q, r within [-2^62, 2^62]); returns zeta */
static inline int64_t batch_end(struct sg_mat *t, uint64_t u, uint64_t v, uint64_t q,
				uint64_t r, int64_t zeta)
{
	t->u = (int64_t)u;
	t->v = (int64_t)v;
	t->q = (int64_t)q;
	t->r = (int64_t)r;
	return zeta;
}

/*
 * 59 divsteps on the low words f (odd) and g; returns the new zeta, t the
 * matrix with (f', g') 2^62 = (u f + v g, q f + r g) (it starts at
 * 8 = 2^3 and doubles 59 times). u, v, q, r are kept unsigned (shifts of
 * negatives are undefined in C); they stay in [-2^62, 2^62], so the casts
 * back are exact. k, b: the variant's K and B.
 */
static int64_t divsteps_59_c(int64_t zeta, uint64_t f, uint64_t g, struct sg_mat *t, uint64_t k,
			     uint64_t b)
{
	uint64_t u = 8, v = 0, q = 0, r = 8;

	for (int i = 0; i < 59; i++) {
		/* all-ones when zeta < 0, and when g is odd */
		uint64_t neg = (uint64_t)0 - ct_barrier_u64((uint64_t)zeta >> 63);
		uint64_t odd = (uint64_t)0 - ct_barrier_u64(g & 1);
		uint64_t x = (f ^ neg) - neg, y = (u ^ neg) - neg, z = (v ^ neg) - neg;

		g += x & odd; /* g - f when zeta < 0, else g + f; only if g is odd */
		q += y & odd;
		r += z & odd;
		neg &= odd;   /* both held: f becomes the old g */
		zeta = (int64_t)((((uint64_t)zeta ^ neg) + (k & neg)) - b);
		f += g & neg;
		u += q & neg;
		v += r & neg;
		g >>= 1;
		u <<= 1;
		v <<= 1;
	}
	return batch_end(t, u, v, q, r, zeta);
}

#if defined(__x86_64__)
/*
 * The same 59 divsteps in x86-64 assembly, with CMOV for the selections:
 * g - f or g + f by the sign of zeta, kept if g is odd; f, u, v replaced
 * by g, q, r if both hold. The chain from one g to the next is about four
 * instructions instead of the C's six (g's low bit, a mask, an AND, the
 * add, the shift): the inversion takes 16% fewer cycles. Only the loop
 * count branches. CMOV is in every x86-64 CPU; valgrind runs it, so
 * ctgrind checks this code too (tests/ct/ct_25519.c, ct_p256.c, ct_rsa.c).
 * One text for both variants: ADD_K is the instruction adding K to the
 * swap case's ~zeta (none when K = 0), B the immediate subtracted. The
 * step is about 30 instructions and Zen 5 runs it at about 4.5 cycles, so
 * what pays is fewer instructions: one test of zeta serves all three
 * selections, and the loop does two steps a turn (1.5% of an inversion).
 */
/* one divstep; ADD_K adds K to ~zeta (swap case), B is subtracted after */
#define DIVSTEP_CMOV(ADD_K, B)                                                             \
	"mov %[g], %[t1]\n\t"                                                               \
	"sub %[f], %[t1]\n\t"         /* g - f */                                           \
	"mov %[q], %[t2]\n\t"                                                               \
	"sub %[u], %[t2]\n\t"         /* q - u */                                           \
	"mov %[r], %[rs]\n\t"                                                               \
	"sub %[v], %[rs]\n\t"         /* r - v */                                           \
	"lea (%[g], %[f]), %[gs]\n\t" /* g + f */                                           \
	"lea (%[q], %[u]), %[qs]\n\t" /* q + u */                                           \
	"test %[z], %[z]\n\t"                                                               \
	"cmovs %[t1], %[gs]\n\t"                                                            \
	"cmovs %[t2], %[qs]\n\t"                                                            \
	"lea (%[r], %[v]), %[t1]\n\t" /* r + v */                                           \
	"cmovns %[t1], %[rs]\n\t"                                                           \
	"mov %[g], %[t1]\n\t"                                                               \
	"shl $63, %[t1]\n\t"                                                                \
	"mov %[z], %[t2]\n\t"                                                               \
	"not %[t2]\n\t"               /* ~zeta (+ K) */                                     \
	ADD_K                                                                               \
	"and %[z], %[t1]\n\t"         /* sign: zeta < 0 and g odd */                        \
	"cmovs %[g], %[f]\n\t"                                                              \
	"cmovs %[q], %[u]\n\t"                                                              \
	"cmovs %[r], %[v]\n\t"                                                              \
	"cmovs %[t2], %[z]\n\t"                                                             \
	"test $1, %b[g]\n\t"                                                                \
	"cmovnz %[gs], %[g]\n\t"                                                            \
	"cmovnz %[qs], %[q]\n\t"                                                            \
	"cmovnz %[rs], %[r]\n\t"                                                            \
	"shr $1, %[g]\n\t"                                                                  \
	"add %[u], %[u]\n\t"                                                                \
	"add %[v], %[v]\n\t"                                                                \
	"sub $" #B ", %[z]\n\t"

/* 59 = 1 + 2 x 29 divsteps: one, then a loop of two (half the loop count's work) */
#define DIVSTEPS_59_CMOV(name, ADD_K, B)                                                   \
	static ALWAYS_INLINE int64_t name(int64_t zeta, uint64_t f, uint64_t g,             \
					  struct sg_mat *t)                                 \
	{                                                                                   \
		uint64_t u = 8, v = 0, q = 0, r = 8;                                        \
		uint64_t gs, qs, rs, t1, t2;                                                \
		uint64_t n = 29;                                                            \
                                                                                            \
		__asm__(DIVSTEP_CMOV(ADD_K, B)                                              \
			"1:\n\t"                                                            \
			DIVSTEP_CMOV(ADD_K, B)                                              \
			DIVSTEP_CMOV(ADD_K, B)                                              \
			"sub $1, %[n]\n\t"                                                  \
			"jnz 1b"                                                            \
			: [f] "+r"(f), [g] "+r"(g), [u] "+r"(u), [v] "+r"(v), [q] "+r"(q),  \
			  [r] "+r"(r), [z] "+r"(zeta), [n] "+r"(n), [gs] "=&r"(gs),          \
			  [qs] "=&r"(qs), [rs] "=&r"(rs), [t1] "=&r"(t1), [t2] "=&r"(t2)     \
			:                                                                   \
			: "cc");                                                            \
		return batch_end(t, u, v, q, r, zeta);                                      \
	}
DIVSTEPS_59_CMOV(divsteps_59_cmov, "", 1)
DIVSTEPS_59_CMOV(divsteps_59_cmov_orig, "add $3, %[t2]\n\t", 2)
#endif

int64_t sg_divsteps_59(int64_t zeta, uint64_t f, uint64_t g, struct sg_mat *t)
{
#if defined(__x86_64__)
	if (cpu_features() != 0)
		return divsteps_59_cmov_orig(zeta, f, g, t);
#endif
	return divsteps_59_c(zeta, f, g, t, 3, 2);
}

struct inv_ws {
	struct s62 f, g, d, e;
	struct sg_mat t;
};

static ALWAYS_INLINE void inv(uint64_t r[4], const uint64_t a[4], const struct sg256_mod *m)
{
	struct inv_ws w;
	int64_t zeta = -1; /* delta = 1/2 */
	/* the C divsteps when forced portable (the tests compare the two) */
	int cmov = cpu_features() != 0;

	(void)cmov;
	w.g = (struct s62){ LIMBS62(a[0], a[1], a[2], a[3]) };
	w.f = (struct s62){ { m->m[0], m->m[1], m->m[2], m->m[3], m->m[4] } };
	w.d = (struct s62){ { 0, 0, 0, 0, 0 } };
	w.e = (struct s62){ { 1, 0, 0, 0, 0 } };
	for (int i = 0; i < BATCHES; i++) {
#if defined(__x86_64__)
		if (cmov)
			zeta = divsteps_59_cmov(zeta, (uint64_t)w.f.v[0], (uint64_t)w.g.v[0], &w.t);
		else
#endif
			zeta = divsteps_59_c(zeta, (uint64_t)w.f.v[0], (uint64_t)w.g.v[0], &w.t, 0, 1);
		sg_update_de(w.d.v, w.e.v, &w.t, m->m, m->minv, 5);
		sg_update_fg(w.f.v, w.g.v, &w.t, 5);
	}
	sg_normalize(w.d.v, w.f.v[4], m->m, 5);
	r[0] = (uint64_t)w.d.v[0] | ((uint64_t)w.d.v[1] << 62);
	r[1] = ((uint64_t)w.d.v[1] >> 2) | ((uint64_t)w.d.v[2] << 60);
	r[2] = ((uint64_t)w.d.v[2] >> 4) | ((uint64_t)w.d.v[3] << 58);
	r[3] = ((uint64_t)w.d.v[3] >> 6) | ((uint64_t)w.d.v[4] << 56);
	wipe(&w, sizeof(w));
}

void sg256_inv(uint64_t r[4], const uint64_t a[4], const struct sg256_mod *m)
{
	/* the modulus is public: choosing the specialised copy leaks nothing */
	if (m == &sg256_p25519)
		inv(r, a, &sg256_p25519);
	else
		inv(r, a, m);
}
