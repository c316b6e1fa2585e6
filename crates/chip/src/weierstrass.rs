//! ECDSA verification over any short-Weierstrass curve on a prime field (y² = x³ + ax + b),
//! for the curves ICAO 9303 allows that no RustCrypto crate offers in a release
//! (brainpoolP160r1, P192r1, P224r1, P320r1, P512r1) and NIST P-192 and P-224.
//!
//! Verification only, over public data (a key, a message digest, a signature): nothing secret
//! goes through this arithmetic, so it need not be constant time, and it is written for
//! clarity: Jacobian coordinates over `num-bigint`. Only the domain parameters of the named
//! curves in [`crate::crypto`] reach it (explicit parameters are recognised as one of them,
//! never taken as given), and every curve is tested against signatures OpenSSL made.

use num_bigint::BigUint;

/// A curve's domain parameters (cofactor 1, as for every curve ICAO 9303 names).
pub struct Domain {
    pub p: BigUint,
    pub a: BigUint,
    pub b: BigUint,
    pub gx: BigUint,
    pub gy: BigUint,
    pub n: BigUint,
}

/// A point in Jacobian coordinates (x = X/Z², y = Y/Z³); Z = 0 is the point at infinity.
#[derive(Clone)]
struct Jacobian {
    x: BigUint,
    y: BigUint,
    z: BigUint,
}

impl Domain {
    /// Parses hexadecimal parameters (the table in `crypto`).
    pub fn from_hex(p: &str, a: &str, b: &str, gx: &str, gy: &str, n: &str) -> Domain {
        let big = |hex: &str| BigUint::parse_bytes(hex.as_bytes(), 16).unwrap_or_default();
        Domain { p: big(p), a: big(a), b: big(b), gx: big(gx), gy: big(gy), n: big(n) }
    }

    /// The byte length of a field element.
    pub fn field_len(&self) -> usize {
        usize::try_from(self.p.bits().div_ceil(8)).unwrap_or(usize::MAX)
    }

    /// The byte length of a scalar (half a plain r‖s signature).
    pub fn scalar_len(&self) -> usize {
        usize::try_from(self.n.bits().div_ceil(8)).unwrap_or(usize::MAX)
    }

    fn add_mod(&self, x: &BigUint, y: &BigUint) -> BigUint {
        (x + y) % &self.p
    }

    fn sub_mod(&self, x: &BigUint, y: &BigUint) -> BigUint {
        ((x + &self.p) - y) % &self.p
    }

    fn mul_mod(&self, x: &BigUint, y: &BigUint) -> BigUint {
        (x * y) % &self.p
    }

    /// Whether (x, y) lies on the curve, with both coordinates reduced.
    pub fn on_curve(&self, x: &BigUint, y: &BigUint) -> bool {
        if x >= &self.p || y >= &self.p {
            return false;
        }
        let lhs = self.mul_mod(y, y);
        let rhs = self.add_mod(
            &self.add_mod(&self.mul_mod(&self.mul_mod(x, x), x), &self.mul_mod(&self.a, x)),
            &self.b,
        );
        lhs == rhs
    }

    /// A SEC1 point (uncompressed `04 x y`, or compressed `02`/`03 x`) on the curve, or
    /// `None`.
    pub fn decode_point(&self, bytes: &[u8]) -> Option<(BigUint, BigUint)> {
        let len = self.field_len();
        let (&kind, rest) = bytes.split_first()?;
        let (x, y) = match kind {
            0x04 if rest.len() == 2 * len => {
                (BigUint::from_bytes_be(&rest[..len]), BigUint::from_bytes_be(&rest[len..]))
            }
            0x02 | 0x03 if rest.len() == len => {
                let x = BigUint::from_bytes_be(rest);
                let rhs = self.add_mod(
                    &self.add_mod(
                        &self.mul_mod(&self.mul_mod(&x, &x), &x),
                        &self.mul_mod(&self.a, &x),
                    ),
                    &self.b,
                );
                let root = self.sqrt(&rhs)?;
                let y = if root.bit(0) == (kind == 0x03) { root } else { &self.p - root };
                (x, y % &self.p)
            }
            _ => return None,
        };
        self.on_curve(&x, &y).then_some((x, y))
    }

    /// A square root of `v` modulo p, when there is one: v^((p+1)/4) where p ≡ 3 mod 4 (every
    /// curve here but P-224), Tonelli–Shanks otherwise.
    fn sqrt(&self, v: &BigUint) -> Option<BigUint> {
        let p = &self.p;
        let one = BigUint::from(1u32);
        let root = if p.bit(0) && p.bit(1) {
            v.modpow(&((p + 1u32) >> 2), p)
        } else {
            // p − 1 = q·2^s with q odd; z a non-residue.
            let s = (p - 1u32).trailing_zeros()?;
            let q = (p - 1u32) >> s;
            let half = (p - 1u32) >> 1;
            let z = (2u32..1000).map(BigUint::from).find(|z| z.modpow(&half, p) != one)?;
            let (mut m, mut c) = (s, z.modpow(&q, p));
            let (mut t, mut r) = (v.modpow(&q, p), v.modpow(&((&q + 1u32) >> 1), p));
            while t != one {
                if t == BigUint::ZERO {
                    return Some(BigUint::ZERO);
                }
                let mut i = 0;
                let mut square = t.clone();
                while square != one {
                    square = self.mul_mod(&square, &square);
                    i += 1;
                    if i == m {
                        return None;
                    }
                }
                let b = c.modpow(&(BigUint::from(1u32) << (m - i - 1)), p);
                m = i;
                c = self.mul_mod(&b, &b);
                t = self.mul_mod(&t, &c);
                r = self.mul_mod(&r, &b);
            }
            r
        };
        (self.mul_mod(&root, &root) == v % p).then_some(root)
    }

    fn infinity() -> Jacobian {
        Jacobian { x: BigUint::from(1u32), y: BigUint::from(1u32), z: BigUint::ZERO }
    }

    fn double(&self, q: &Jacobian) -> Jacobian {
        if q.z == BigUint::ZERO || q.y == BigUint::ZERO {
            return Self::infinity();
        }
        let xx = self.mul_mod(&q.x, &q.x);
        let yy = self.mul_mod(&q.y, &q.y);
        let yyyy = self.mul_mod(&yy, &yy);
        let zz = self.mul_mod(&q.z, &q.z);
        let s = self.mul_mod(&BigUint::from(4u32), &self.mul_mod(&q.x, &yy));
        let m = self.add_mod(
            &self.mul_mod(&BigUint::from(3u32), &xx),
            &self.mul_mod(&self.a, &self.mul_mod(&zz, &zz)),
        );
        let x3 = self.sub_mod(&self.mul_mod(&m, &m), &self.add_mod(&s, &s));
        let y3 = self.sub_mod(
            &self.mul_mod(&m, &self.sub_mod(&s, &x3)),
            &self.mul_mod(&BigUint::from(8u32), &yyyy),
        );
        let z3 = self.mul_mod(&BigUint::from(2u32), &self.mul_mod(&q.y, &q.z));
        Jacobian { x: x3, y: y3, z: z3 }
    }

    fn add(&self, p1: &Jacobian, p2: &Jacobian) -> Jacobian {
        if p1.z == BigUint::ZERO {
            return p2.clone();
        }
        if p2.z == BigUint::ZERO {
            return p1.clone();
        }
        let z1z1 = self.mul_mod(&p1.z, &p1.z);
        let z2z2 = self.mul_mod(&p2.z, &p2.z);
        let u1 = self.mul_mod(&p1.x, &z2z2);
        let u2 = self.mul_mod(&p2.x, &z1z1);
        let s1 = self.mul_mod(&p1.y, &self.mul_mod(&p2.z, &z2z2));
        let s2 = self.mul_mod(&p2.y, &self.mul_mod(&p1.z, &z1z1));
        if u1 == u2 {
            return if s1 == s2 { self.double(p1) } else { Self::infinity() };
        }
        let h = self.sub_mod(&u2, &u1);
        let r = self.sub_mod(&s2, &s1);
        let hh = self.mul_mod(&h, &h);
        let hhh = self.mul_mod(&h, &hh);
        let v = self.mul_mod(&u1, &hh);
        let x3 = self.sub_mod(&self.sub_mod(&self.mul_mod(&r, &r), &hhh), &self.add_mod(&v, &v));
        let y3 = self.sub_mod(&self.mul_mod(&r, &self.sub_mod(&v, &x3)), &self.mul_mod(&s1, &hhh));
        let z3 = self.mul_mod(&self.mul_mod(&p1.z, &p2.z), &h);
        Jacobian { x: x3, y: y3, z: z3 }
    }

    /// u1·G + u2·Q by one pass over the bits of both (Shamir's trick).
    fn double_mul(&self, u1: &BigUint, u2: &BigUint, q: &Jacobian) -> Jacobian {
        let g = Jacobian { x: self.gx.clone(), y: self.gy.clone(), z: BigUint::from(1u32) };
        let gq = self.add(&g, q);
        let mut acc = Self::infinity();
        for bit in (0..u1.bits().max(u2.bits())).rev() {
            acc = self.double(&acc);
            match (u1.bit(bit), u2.bit(bit)) {
                (true, true) => acc = self.add(&acc, &gq),
                (true, false) => acc = self.add(&acc, &g),
                (false, true) => acc = self.add(&acc, q),
                (false, false) => {}
            }
        }
        acc
    }

    /// ECDSA verification (SEC 1 §4.1.4) of (r, s) over `prehash` with the public point
    /// (`qx`, `qy`), which must be on the curve.
    pub fn verify(
        &self,
        (qx, qy): (&BigUint, &BigUint),
        prehash: &[u8],
        r: &BigUint,
        s: &BigUint,
    ) -> bool {
        let zero = BigUint::ZERO;
        if *r == zero || *s == zero || r >= &self.n || s >= &self.n || !self.on_curve(qx, qy) {
            return false;
        }
        // The digest's leftmost bits, as many as the order has.
        let mut e = BigUint::from_bytes_be(prehash);
        let hash_bits = u64::try_from(prehash.len()).unwrap_or(u64::MAX).saturating_mul(8);
        if hash_bits > self.n.bits() {
            e >>= hash_bits - self.n.bits();
        }
        let Some(w) = s.modinv(&self.n) else { return false };
        let u1 = (e * &w) % &self.n;
        let u2 = (r * &w) % &self.n;
        let q = Jacobian { x: qx.clone(), y: qy.clone(), z: BigUint::from(1u32) };
        let point = self.double_mul(&u1, &u2, &q);
        if point.z == zero {
            return false;
        }
        let Some(z_inv) = point.z.modinv(&self.p) else { return false };
        let x = self.mul_mod(&point.x, &self.mul_mod(&z_inv, &z_inv));
        x % &self.n == *r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NIST P-192 (signatures on every curve are tested in `tests/it/curves.rs`).
    fn p192() -> Domain {
        Domain::from_hex(
            "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFFFFFFFFFFFF",
            "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFFFFFFFFFFFC",
            "64210519E59C80E70FA7E9AB72243049FEB8DEECC146B9B1",
            "188DA80EB03090F67CBF20EB43A18800F4FF0AFD82FF1012",
            "07192B95FFC8DA78631011ED6B24CDD573F977A11E794811",
            "FFFFFFFFFFFFFFFFFFFFFFFF99DEF836146BC9B1B4D22831",
        )
    }

    #[test]
    fn the_generator_is_on_the_curve_and_n_times_it_is_infinity() {
        let d = p192();
        assert!(d.on_curve(&d.gx, &d.gy));
        let g = Jacobian { x: d.gx.clone(), y: d.gy.clone(), z: BigUint::from(1u32) };
        assert!(d.double_mul(&d.n, &BigUint::ZERO, &g).z == BigUint::ZERO);
        let mut uncompressed = vec![4];
        uncompressed.extend(d.gx.to_bytes_be());
        uncompressed.extend(vec![0; 24 - d.gy.to_bytes_be().len()]);
        uncompressed.extend(d.gy.to_bytes_be());
        assert!(d.decode_point(&uncompressed).is_some());
        let mut compressed = vec![if d.gy.bit(0) { 3 } else { 2 }];
        compressed.extend(d.gx.to_bytes_be());
        assert_eq!(d.decode_point(&compressed).map(|(_, y)| y), Some(d.gy.clone()));
        uncompressed[10] ^= 1;
        assert!(d.decode_point(&uncompressed).is_none(), "a point off the curve");
    }

    #[test]
    fn compressed_points_decode_on_p224_whose_prime_is_1_mod_4() {
        let d = Domain::from_hex(
            "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF000000000000000000000001",
            "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFE",
            "B4050A850C04B3ABF54132565044B0B7D7BFD8BA270B39432355FFB4",
            "B70E0CBD6BB4BF7F321390B94A03C1D356C21122343280D6115C1D21",
            "BD376388B5F723FB4C22DFE6CD4375A05A07476444D5819985007E34",
            "FFFFFFFFFFFFFFFFFFFFFFFFFFFF16A2E0B8F03E13DD29455C5C2A3D",
        );
        for parity in [2u8, 3] {
            let mut compressed = vec![parity];
            compressed.extend(d.gx.to_bytes_be());
            let (x, y) = d.decode_point(&compressed).expect("a point");
            assert_eq!(x, d.gx);
            assert_eq!(y == d.gy, d.gy.bit(0) == (parity == 3));
            assert!(d.on_curve(&x, &y));
        }
    }

    #[test]
    fn out_of_range_signatures_are_refused() {
        let d = p192();
        let q = (&d.gx, &d.gy);
        assert!(!d.verify(q, b"digest", &BigUint::ZERO, &BigUint::from(1u32)));
        assert!(!d.verify(q, b"digest", &d.n, &BigUint::from(1u32)));
        assert!(!d.verify(q, b"digest", &BigUint::from(1u32), &d.n));
    }
}
