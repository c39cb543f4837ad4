/*
 * X25519 Montgomery ladder on 4 x 64-bit limbs with BMI2 (MULX) and ADX
 * (ADCX/ADOX), in x86-64 inline assembly.
 *
 * Implementation notes:
 * - An element is four 64-bit limbs, least significant first, holding any
 *   value in [0, 2^256) that is congruent to the element mod p = 2^255 - 19
 *   ("loose" form). Only the final encoding reduces fully (fe64_tobytes).
 *   Every function below takes loose inputs and gives a loose output.
 * - Multiplication: the 512-bit product by rows of MULX with two carry
 *   chains (ADCX on CF for the low halves, ADOX on OF for the high halves),
 *   then 2^256 = 38 mod p folds the top four limbs down with four more
 *   MULX; the carry word left (at most 39) is folded once more as 38 times
 *   it, and a last carry out (possible only when the sum wrapped, which
 *   leaves the low limb below 38 * 39) as a masked 38 that cannot carry.
 *   Squaring computes the six cross products once, doubles them and adds
 *   the four squares (10 MULX instead of 16), then reduces the same way.
 * - Inline assembly because compilers do not keep the two carry chains
 *   apart with intrinsics (a 4 x 64 version written with intrinsics was
 *   slower than the portable 5 x 51 code, see crypto/x25519.c). Fixed
 *   registers, no rbp, "memory" clobbered: it builds at -O0 and with
 *   sanitizers.
 * - Addition and subtraction fold their carry or borrow the same way
 *   (38 times it, twice, masked): no branch.
 * - The ladder is the one of crypto/x25519.c step for step (RFC 7748 5),
 *   with the same lazy masked swaps; the result x2 / z2 uses Fermat
 *   inversion by the same addition chain (254 squarings, 11 products).
 *   The output bytes are canonical, so they equal the portable ones bit
 *   for bit (tests/crypto/test_x25519.c compares them).
 * - Constant time: a fixed instruction sequence whatever the scalar and
 *   the point; swaps and carry folds are masks. What may leak: nothing but
 *   the fact that this backend ran (public: chosen from CPUID).
 * - The caller checks hs_cpu_has(HS_CPU_BMI2 | HS_CPU_ADX). valgrind does
 *   not offer ADX, so ctgrind exercises the portable ladder only.
 * - Secrets on the stack (ladder state, scalar-dependent swap mask) are
 *   wiped.
 */
#include "crypto/x25519.h"

#if defined(__x86_64__)

#include <string.h>

#include "base/wipe.h"
#include "crypto/ct.h"

typedef uint64_t fe64[4];

/*
 * 512-bit r8..r15 (limbs 0..7) -> r = r8..r11 + 38 r12..r15, folded twice
 * to four limbs. rcx must be 0; rdx, rax, rbx are scratch.
 */
#define FE64_REDUCE                                                                            \
	"movl $38, %%edx\n\t"                                                                  \
	"xorl %%ecx, %%ecx\n\t"                                                                \
	"mulxq %%r12, %%rax, %%rbx\n\t"                                                        \
	"adcxq %%rax, %%r8\n\t"                                                                \
	"adoxq %%rbx, %%r9\n\t"                                                                \
	"mulxq %%r13, %%rax, %%rbx\n\t"                                                        \
	"adcxq %%rax, %%r9\n\t"                                                                \
	"adoxq %%rbx, %%r10\n\t"                                                               \
	"mulxq %%r14, %%rax, %%rbx\n\t"                                                        \
	"adcxq %%rax, %%r10\n\t"                                                               \
	"adoxq %%rbx, %%r11\n\t"                                                               \
	"mulxq %%r15, %%rax, %%r12\n\t"                                                        \
	"adcxq %%rax, %%r11\n\t"                                                               \
	"adoxq %%rcx, %%r12\n\t"                                                               \
	"adcxq %%rcx, %%r12\n\t" /* r12 <= 37 + 2: the carry word */                           \
	"imulq $38, %%r12, %%r12\n\t"                                                          \
	"addq %%r12, %%r8\n\t"                                                                 \
	"adcq %%rcx, %%r9\n\t"                                                                 \
	"adcq %%rcx, %%r10\n\t"                                                                \
	"adcq %%rcx, %%r11\n\t"                                                                \
	"sbbq %%rax, %%rax\n\t" /* all-ones iff that wrapped past 2^256 */                     \
	"andq $38, %%rax\n\t"                                                                  \
	"addq %%rax, %%r8\n\t" /* r8 < 38 * 39 when it wrapped: no carry */                    \
	"movq %%r8, 0(%%rdi)\n\t"                                                              \
	"movq %%r9, 8(%%rdi)\n\t"                                                              \
	"movq %%r10, 16(%%rdi)\n\t"                                                            \
	"movq %%r11, 24(%%rdi)\n\t"

/*
 * T0..T4 += a * rdx (T4 is written fresh), Z a register that becomes 0.
 * CF carries the low halves, OF the high halves; neither carries out of
 * T4 since the partial product fits the limbs written so far.
 */
#define FE64_ROW(T0, T1, T2, T3, T4, Z)                                                        \
	"xorq %%" Z ", %%" Z "\n\t"                                                            \
	"mulxq 0(%%rsi), %%rax, %%rbx\n\t"                                                     \
	"adcxq %%rax, %%" T0 "\n\t"                                                            \
	"adoxq %%rbx, %%" T1 "\n\t"                                                            \
	"mulxq 8(%%rsi), %%rax, %%rbx\n\t"                                                     \
	"adcxq %%rax, %%" T1 "\n\t"                                                            \
	"adoxq %%rbx, %%" T2 "\n\t"                                                            \
	"mulxq 16(%%rsi), %%rax, %%rbx\n\t"                                                    \
	"adcxq %%rax, %%" T2 "\n\t"                                                            \
	"adoxq %%rbx, %%" T3 "\n\t"                                                            \
	"mulxq 24(%%rsi), %%rax, %%" T4 "\n\t"                                                 \
	"adcxq %%rax, %%" T3 "\n\t"                                                            \
	"adoxq %%" Z ", %%" T4 "\n\t"                                                          \
	"adcxq %%" Z ", %%" T4 "\n\t"

/* r = a b mod p (loose). r may alias a or b. Out of line: it clobbers most registers. */
static __attribute__((noinline)) void fe64_mul(fe64 r, const fe64 a, const fe64 b)
{
	const uint64_t *bp = b;

	__asm__ volatile(
		/* row 0 into r8..r12 */
		"movq 0(%%rcx), %%rdx\n\t"
		"mulxq 0(%%rsi), %%r8, %%r9\n\t"
		"mulxq 8(%%rsi), %%rax, %%r10\n\t"
		"addq %%rax, %%r9\n\t"
		"mulxq 16(%%rsi), %%rax, %%r11\n\t"
		"adcq %%rax, %%r10\n\t"
		"mulxq 24(%%rsi), %%rax, %%r12\n\t"
		"adcq %%rax, %%r11\n\t"
		"adcq $0, %%r12\n\t"
		"movq 8(%%rcx), %%rdx\n\t"
		FE64_ROW("r9", "r10", "r11", "r12", "r13", "r15")
		"movq 16(%%rcx), %%rdx\n\t"
		FE64_ROW("r10", "r11", "r12", "r13", "r14", "r15")
		"movq 24(%%rcx), %%rdx\n\t"
		FE64_ROW("r11", "r12", "r13", "r14", "r15", "rcx")
		FE64_REDUCE
		: "+c"(bp)
		: "D"(r), "S"(a)
		: "rax", "rbx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "cc",
		  "memory");
}

/* r = a^2 mod p (loose). r may alias a. */
static __attribute__((noinline)) void fe64_sqr(fe64 r, const fe64 a)
{
	__asm__ volatile(
		/* a0 (a1, a2, a3) into r9..r12 */
		"movq 0(%%rsi), %%rdx\n\t"
		"mulxq 8(%%rsi), %%r9, %%r10\n\t"
		"mulxq 16(%%rsi), %%rax, %%r11\n\t"
		"addq %%rax, %%r10\n\t"
		"mulxq 24(%%rsi), %%rax, %%r12\n\t"
		"adcq %%rax, %%r11\n\t"
		"adcq $0, %%r12\n\t"
		/* a1 (a2, a3) into r11..r13 */
		"movq 8(%%rsi), %%rdx\n\t"
		"mulxq 16(%%rsi), %%rax, %%rbx\n\t"
		"mulxq 24(%%rsi), %%rcx, %%r13\n\t"
		"addq %%rax, %%r11\n\t"
		"adcq %%rbx, %%r12\n\t"
		"adcq $0, %%r13\n\t"
		"addq %%rcx, %%r12\n\t"
		"adcq $0, %%r13\n\t"
		/* a2 a3 into r13..r14 */
		"movq 16(%%rsi), %%rdx\n\t"
		"mulxq 24(%%rsi), %%rax, %%r14\n\t"
		"addq %%rax, %%r13\n\t"
		"adcq $0, %%r14\n\t"
		/* double into r9..r15 */
		"xorl %%r15d, %%r15d\n\t"
		"addq %%r9, %%r9\n\t"
		"adcq %%r10, %%r10\n\t"
		"adcq %%r11, %%r11\n\t"
		"adcq %%r12, %%r12\n\t"
		"adcq %%r13, %%r13\n\t"
		"adcq %%r14, %%r14\n\t"
		"adcq $0, %%r15\n\t"
		/* the squares on the diagonal, one carry chain (MOV, MULX keep CF) */
		"movq 0(%%rsi), %%rdx\n\t"
		"mulxq %%rdx, %%r8, %%rax\n\t"
		"addq %%rax, %%r9\n\t"
		"movq 8(%%rsi), %%rdx\n\t"
		"mulxq %%rdx, %%rax, %%rbx\n\t"
		"adcq %%rax, %%r10\n\t"
		"adcq %%rbx, %%r11\n\t"
		"movq 16(%%rsi), %%rdx\n\t"
		"mulxq %%rdx, %%rax, %%rbx\n\t"
		"adcq %%rax, %%r12\n\t"
		"adcq %%rbx, %%r13\n\t"
		"movq 24(%%rsi), %%rdx\n\t"
		"mulxq %%rdx, %%rax, %%rbx\n\t"
		"adcq %%rax, %%r14\n\t"
		"adcq %%rbx, %%r15\n\t"
		FE64_REDUCE
		:
		: "D"(r), "S"(a)
		: "rax", "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
		  "cc", "memory");
}
#undef FE64_ROW
#undef FE64_REDUCE

/*
 * Fold the carry out of t0..t3 (CF after the last ADC) back in as 38,
 * twice; m is scratch. The second fold cannot carry (see the notes).
 */
#define FE64_FOLD_ADD                                                                          \
	"sbbq %[m], %[m]\n\t"                                                                  \
	"andq $38, %[m]\n\t"                                                                   \
	"addq %[m], %[t0]\n\t"                                                                 \
	"adcq $0, %[t1]\n\t"                                                                   \
	"adcq $0, %[t2]\n\t"                                                                   \
	"adcq $0, %[t3]\n\t"                                                                   \
	"sbbq %[m], %[m]\n\t"                                                                  \
	"andq $38, %[m]\n\t"                                                                   \
	"addq %[m], %[t0]\n\t"                                                                 \
	"movq %[t0], 0(%[r])\n\t"                                                              \
	"movq %[t1], 8(%[r])\n\t"                                                              \
	"movq %[t2], 16(%[r])\n\t"                                                             \
	"movq %[t3], 24(%[r])\n\t"

#define FE64_OUTS                                                                              \
	[t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [m] "=&r"(m)

/* r = a + b (loose): a carry of 2^256 = 38 mod p is added back as 38. */
static inline void fe64_add(fe64 r, const fe64 a, const fe64 b)
{
	uint64_t t0, t1, t2, t3, m;

	__asm__ volatile("movq 0(%[a]), %[t0]\n\t"
			 "movq 8(%[a]), %[t1]\n\t"
			 "movq 16(%[a]), %[t2]\n\t"
			 "movq 24(%[a]), %[t3]\n\t"
			 "addq 0(%[b]), %[t0]\n\t"
			 "adcq 8(%[b]), %[t1]\n\t"
			 "adcq 16(%[b]), %[t2]\n\t"
			 "adcq 24(%[b]), %[t3]\n\t"
			 FE64_FOLD_ADD
			 : FE64_OUTS
			 : [r] "r"(r), [a] "r"(a), [b] "r"(b)
			 : "cc", "memory");
}

/*
 * r = a - b (loose): a borrow of 2^256 = 38 mod p is made good by
 * subtracting 38, twice; after a second borrow r >= 2^256 - 38, so the
 * last subtraction cannot borrow.
 */
static inline void fe64_sub(fe64 r, const fe64 a, const fe64 b)
{
	uint64_t t0, t1, t2, t3, m;

	__asm__ volatile("movq 0(%[a]), %[t0]\n\t"
			 "movq 8(%[a]), %[t1]\n\t"
			 "movq 16(%[a]), %[t2]\n\t"
			 "movq 24(%[a]), %[t3]\n\t"
			 "subq 0(%[b]), %[t0]\n\t"
			 "sbbq 8(%[b]), %[t1]\n\t"
			 "sbbq 16(%[b]), %[t2]\n\t"
			 "sbbq 24(%[b]), %[t3]\n\t"
			 "sbbq %[m], %[m]\n\t"
			 "andq $38, %[m]\n\t"
			 "subq %[m], %[t0]\n\t"
			 "sbbq $0, %[t1]\n\t"
			 "sbbq $0, %[t2]\n\t"
			 "sbbq $0, %[t3]\n\t"
			 "sbbq %[m], %[m]\n\t"
			 "andq $38, %[m]\n\t"
			 "subq %[m], %[t0]\n\t"
			 "movq %[t0], 0(%[r])\n\t"
			 "movq %[t1], 8(%[r])\n\t"
			 "movq %[t2], 16(%[r])\n\t"
			 "movq %[t3], 24(%[r])\n\t"
			 : FE64_OUTS
			 : [r] "r"(r), [a] "r"(a), [b] "r"(b)
			 : "cc", "memory");
}

/*
 * r = a * 121665 = a * a24 (RFC 7748 5): five limbs, the top one (below
 * 121665) folded as 38 times it, then the usual masked fold.
 */
static inline void fe64_mul_a24(fe64 r, const fe64 a)
{
	uint64_t t0, t1, t2, t3, m, lo;

	__asm__ volatile("movl $121665, %%edx\n\t"
			 "mulxq 0(%[a]), %[t0], %[t1]\n\t"
			 "mulxq 8(%[a]), %[lo], %[t2]\n\t"
			 "addq %[lo], %[t1]\n\t"
			 "mulxq 16(%[a]), %[lo], %[t3]\n\t"
			 "adcq %[lo], %[t2]\n\t"
			 "mulxq 24(%[a]), %[lo], %[m]\n\t"
			 "adcq %[lo], %[t3]\n\t"
			 "adcq $0, %[m]\n\t"
			 "imulq $38, %[m], %[m]\n\t"
			 "addq %[m], %[t0]\n\t"
			 "adcq $0, %[t1]\n\t"
			 "adcq $0, %[t2]\n\t"
			 "adcq $0, %[t3]\n\t"
			 FE64_FOLD_ADD
			 : FE64_OUTS, [lo] "=&r"(lo)
			 : [r] "r"(r), [a] "r"(a)
			 : "rdx", "cc", "memory");
}
#undef FE64_FOLD_ADD
#undef FE64_OUTS

static inline uint64_t adc64(uint64_t a, uint64_t b, uint64_t *c)
{
	unsigned __int128 s = (unsigned __int128)a + b + *c;

	*c = (uint64_t)(s >> 64);
	return (uint64_t)s;
}

/* Swap f and g when mask is all-ones; both are read and written either way. */
static inline void fe64_cswap(fe64 f, fe64 g, uint64_t mask)
{
	mask = ct_barrier_u64(mask);
	for (int i = 0; i < 4; i++) {
		uint64_t t = mask & (f[i] ^ g[i]);
		f[i] ^= t;
		g[i] ^= t;
	}
}

static uint64_t load64_le(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/* Little-endian u-coordinate, bit 255 dropped (RFC 7748 5); values >= p kept. */
static void fe64_frombytes(fe64 r, const uint8_t s[32])
{
	for (int i = 0; i < 4; i++)
		r[i] = load64_le(s + 8 * i);
	r[3] &= UINT64_C(0x7fffffffffffffff);
}

/*
 * Canonical encoding of a loose element: fold bit 255 (as 19), which
 * leaves t < 2^255 + 19 < 2p; then t >= p exactly when t + 19 has bit 255
 * set, and t + 19 - 2^255 = t - p is kept by a mask then.
 */
static void fe64_tobytes(uint8_t s[32], const fe64 a)
{
	uint64_t t[4], u[4], c = 0, top, keep;

	top = a[3] >> 63;
	t[0] = adc64(a[0], 19 * top, &c);
	t[1] = adc64(a[1], 0, &c);
	t[2] = adc64(a[2], 0, &c);
	t[3] = adc64(a[3] & UINT64_C(0x7fffffffffffffff), 0, &c);
	c = 0;
	u[0] = adc64(t[0], 19, &c);
	u[1] = adc64(t[1], 0, &c);
	u[2] = adc64(t[2], 0, &c);
	u[3] = adc64(t[3], 0, &c);
	keep = 0 - ct_barrier_u64(u[3] >> 63); /* all-ones: t >= p */
	u[3] &= UINT64_C(0x7fffffffffffffff);
	for (int i = 0; i < 4; i++) {
		uint64_t v = ct_select_u64(keep, u[i], t[i]);

		for (int j = 0; j < 8; j++)
			s[8 * i + j] = (uint8_t)(v >> (8 * j));
	}
}

static void fe64_sqr_n(fe64 r, const fe64 a, int n)
{
	fe64_sqr(r, a);
	for (int i = 1; i < n; i++)
		fe64_sqr(r, r);
}

/* r = 1/z = z^(p-2), p - 2 = 2^255 - 21; 0 maps to 0. Constant time. */
static void fe64_invert(fe64 r, const fe64 z)
{
	fe64 z2, z9, z11, a, b, c;

	fe64_sqr(z2, z);                /* 2 */
	fe64_sqr_n(a, z2, 2);           /* 8 */
	fe64_mul(z9, a, z);             /* 9 */
	fe64_mul(z11, z9, z2);          /* 11 */
	fe64_sqr(a, z11);               /* 22 */
	fe64_mul(a, a, z9);             /* 2^5 - 1 */
	fe64_sqr_n(b, a, 5);
	fe64_mul(a, b, a);              /* 2^10 - 1 */
	fe64_sqr_n(b, a, 10);
	fe64_mul(b, b, a);              /* 2^20 - 1 */
	fe64_sqr_n(c, b, 20);
	fe64_mul(b, c, b);              /* 2^40 - 1 */
	fe64_sqr_n(b, b, 10);
	fe64_mul(a, b, a);              /* 2^50 - 1 */
	fe64_sqr_n(b, a, 50);
	fe64_mul(b, b, a);              /* 2^100 - 1 */
	fe64_sqr_n(c, b, 100);
	fe64_mul(b, c, b);              /* 2^200 - 1 */
	fe64_sqr_n(b, b, 50);
	fe64_mul(b, b, a);              /* 2^250 - 1 */
	fe64_sqr_n(b, b, 5);            /* 2^255 - 2^5 */
	fe64_mul(r, b, z11);            /* 2^255 - 21 */
	hs_wipe(z2, sizeof(z2));
	hs_wipe(z9, sizeof(z9));
	hs_wipe(z11, sizeof(z11));
	hs_wipe(a, sizeof(a));
	hs_wipe(b, sizeof(b));
	hs_wipe(c, sizeof(c));
}

/* Ladder state and scratch in one struct: one wipe clears it all. */
struct ladder64 {
	fe64 x1, x2, z2, x3, z3;
	fe64 a, aa, b, bb, e, c, d, da, cb, t;
};

/* One differential add-and-double step of RFC 7748 5 (after the swap). */
static inline void ladder64_step(struct ladder64 *s)
{
	fe64_add(s->a, s->x2, s->z2);
	fe64_sub(s->b, s->x2, s->z2);
	fe64_add(s->c, s->x3, s->z3);
	fe64_sub(s->d, s->x3, s->z3);
	fe64_sqr(s->aa, s->a);
	fe64_sqr(s->bb, s->b);
	fe64_mul(s->da, s->d, s->a);
	fe64_mul(s->cb, s->c, s->b);
	fe64_sub(s->e, s->aa, s->bb);
	fe64_add(s->x3, s->da, s->cb);
	fe64_sqr(s->x3, s->x3);          /* x3 = (DA + CB)^2 */
	fe64_sub(s->z3, s->da, s->cb);
	fe64_sqr(s->z3, s->z3);
	fe64_mul(s->z3, s->z3, s->x1);   /* z3 = x1 (DA - CB)^2 */
	fe64_mul(s->x2, s->aa, s->bb);   /* x2 = AA BB */
	fe64_mul_a24(s->t, s->e);
	fe64_add(s->t, s->t, s->aa);
	fe64_mul(s->z2, s->t, s->e);     /* z2 = E (AA + a24 E) */
}

void hs_x25519_ladder_adx(uint8_t out[32], const uint8_t k[32], const uint8_t u[32])
{
	struct ladder64 s;
	fe64 zinv;
	uint64_t swap = 0;

	memset(&s, 0, sizeof(s));
	fe64_frombytes(s.x1, u);
	s.x2[0] = 1;
	memcpy(s.x3, s.x1, sizeof(s.x3));
	s.z3[0] = 1;
	for (int t = 254; t >= 0; t--) {
		/* bit t of the scalar, as a 0 / all-ones mask */
		uint64_t bit = 0 - (uint64_t)((k[t >> 3] >> (t & 7)) & 1);

		swap ^= bit;
		fe64_cswap(s.x2, s.x3, swap);
		fe64_cswap(s.z2, s.z3, swap);
		swap = bit;
		ladder64_step(&s);
	}
	fe64_cswap(s.x2, s.x3, swap);
	fe64_cswap(s.z2, s.z3, swap);

	fe64_invert(zinv, s.z2);
	fe64_mul(s.x2, s.x2, zinv);
	fe64_tobytes(out, s.x2);
	hs_wipe(&s, sizeof(s));
	hs_wipe(zinv, sizeof(zinv));
	hs_wipe(&swap, sizeof(swap));
}

#endif
