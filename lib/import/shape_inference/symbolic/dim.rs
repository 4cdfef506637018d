//! A dimension as a polynomial in named sizes with integer coefficients: `384`, `s`,
//! `12*s`, `b*s`, `past+s`. The arithmetic shape computations do on dimensions
//! (products for Reshape and Flatten, sums for Concat, the quotient a Reshape's -1
//! stands for) is exact on these, so `b*s*384 / (b*s*12)` is `32` whatever `b` and `s`
//! are at run time. Every operation answers `None` rather than guess: a quotient that is
//! not a polynomial, or a coefficient that overflows.

use std::collections::BTreeMap;
use std::fmt;

/// A product of named sizes, sorted, a name repeated for a power; empty for the
/// constant term.
type Monomial = Vec<String>;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SymDim {
    /// Monomial → its coefficient; no coefficient is zero, so 0 has no terms.
    terms: BTreeMap<Monomial, i64>,
}

impl SymDim {
    pub fn constant(c: i64) -> SymDim {
        let mut terms = BTreeMap::new();
        if c != 0 {
            terms.insert(Vec::new(), c);
        }
        SymDim { terms }
    }

    pub fn symbol(name: &str) -> SymDim {
        SymDim {
            terms: BTreeMap::from([(vec![name.to_string()], 1)]),
        }
    }

    /// The value when no name is left in it.
    pub fn as_constant(&self) -> Option<i64> {
        match self.terms.len() {
            0 => Some(0),
            1 => self.terms.get(&Vec::new()).copied(),
            _ => None,
        }
    }

    pub fn add(&self, other: &SymDim) -> Option<SymDim> {
        let mut terms = self.terms.clone();
        for (m, &c) in &other.terms {
            let sum = terms.get(m).copied().unwrap_or(0).checked_add(c)?;
            if sum == 0 {
                terms.remove(m);
            } else {
                terms.insert(m.clone(), sum);
            }
        }
        Some(SymDim { terms })
    }

    pub fn sub(&self, other: &SymDim) -> Option<SymDim> {
        self.add(&other.scaled(-1)?)
    }

    pub fn mul(&self, other: &SymDim) -> Option<SymDim> {
        let mut out = SymDim::default();
        for (ma, &ca) in &self.terms {
            for (mb, &cb) in &other.terms {
                let mut m: Monomial = ma.iter().chain(mb).cloned().collect();
                m.sort();
                let term = SymDim {
                    terms: BTreeMap::from([(m, ca.checked_mul(cb)?)]),
                };
                out = out.add(&term)?;
            }
        }
        Some(out)
    }

    fn scaled(&self, k: i64) -> Option<SymDim> {
        let mut terms = BTreeMap::new();
        for (m, &c) in &self.terms {
            let v = c.checked_mul(k)?;
            if v != 0 {
                terms.insert(m.clone(), v);
            }
        }
        Some(SymDim { terms })
    }

    /// `self / other` when it is a polynomial: `other` equal to `self`, or a single term
    /// `c*m` dividing every term of `self`. Never rounds.
    pub fn div_exact(&self, other: &SymDim) -> Option<SymDim> {
        if other == self && !self.terms.is_empty() {
            return Some(SymDim::constant(1));
        }
        let [(dm, &dc)] = other.terms.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        let mut terms = BTreeMap::new();
        for (m, &c) in &self.terms {
            if c % dc != 0 {
                return None;
            }
            terms.insert(without(m, dm)?, c / dc);
        }
        Some(SymDim { terms })
    }

    /// `floor(self / c)` (or the ceiling) for a positive `c`: the quotient where it is
    /// exact, else one name that spells the quotient, `floor((w-1)/2)`. Names are
    /// canonical, so the same quotient of the same sizes gets the same name wherever
    /// it is computed (two branches striding the same input agree).
    pub fn rounded_div(&self, c: i64, ceil: bool) -> Option<SymDim> {
        if c <= 0 {
            return None;
        }
        if let Some(q) = self.div_exact(&SymDim::constant(c)) {
            return Some(q);
        }
        if let Some(n) = self.as_constant() {
            let q = n.div_euclid(c);
            let up = ceil && n.rem_euclid(c) != 0;
            return Some(SymDim::constant(if up { q.checked_add(1)? } else { q }));
        }
        let inner = if self.terms.len() > 1 {
            format!("({self})")
        } else {
            self.to_string()
        };
        let round = if ceil { "ceil" } else { "floor" };
        Some(SymDim::symbol(&format!("{round}({inner}/{c})")))
    }

    /// Whether the value is a product of sizes times a positive constant (never zero
    /// or negative for positive sizes), which a broadcast may take as a dimension.
    pub fn is_monomial(&self) -> bool {
        self.terms.len() == 1 && self.terms.values().all(|&c| c > 0)
    }
}

/// `m` with the names of `d` taken out once each, when it holds them all.
fn without(m: &Monomial, d: &Monomial) -> Option<Monomial> {
    let mut rest = m.clone();
    for name in d {
        let at = rest.iter().position(|n| n == name)?;
        rest.remove(at);
    }
    Some(rest)
}

/// The product of `dims`, `1` for none.
pub fn product<'a>(dims: impl IntoIterator<Item = &'a SymDim>) -> Option<SymDim> {
    dims.into_iter()
        .try_fold(SymDim::constant(1), |acc, d| acc.mul(d))
}

impl fmt::Display for SymDim {
    /// Terms with names first (in name order), the constant last: `b*s`, `past+s`,
    /// `12*s`, `2*s+1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.terms.is_empty() {
            return write!(f, "0");
        }
        let mut ordered: Vec<(&Monomial, i64)> = self.terms.iter().map(|(m, &c)| (m, c)).collect();
        // The constant term (empty monomial) sorts first in the map; print it last.
        let constant_first = usize::from(ordered[0].0.is_empty());
        ordered.rotate_left(constant_first);
        for (i, (m, c)) in ordered.into_iter().enumerate() {
            let sign = if c < 0 {
                "-"
            } else if i > 0 {
                "+"
            } else {
                ""
            };
            let magnitude = c.unsigned_abs();
            let names = m.join("*");
            match (names.is_empty(), magnitude) {
                (true, _) => write!(f, "{sign}{magnitude}")?,
                (false, 1) => write!(f, "{sign}{names}")?,
                (false, _) => write!(f, "{sign}{magnitude}*{names}")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(n: &str) -> SymDim {
        SymDim::symbol(n)
    }
    fn c(v: i64) -> SymDim {
        SymDim::constant(v)
    }

    #[test]
    fn products_and_quotients_cancel_names() {
        let whole = product([&s("b"), &s("s"), &c(384)]).unwrap();
        let rest = product([&s("b"), &s("s"), &c(12)]).unwrap();
        assert_eq!(whole.div_exact(&rest).unwrap().as_constant(), Some(32));
        let total = s("past").add(&s("s")).unwrap();
        assert_eq!(
            total.div_exact(&s("s")),
            None,
            "past+s over s is no polynomial"
        );
        let heads = product([&s("b"), &c(12)]).unwrap();
        let per_head = whole.div_exact(&heads).unwrap();
        assert_eq!(per_head.to_string(), "32*s");
        assert_eq!(per_head.div_exact(&s("s")).unwrap().as_constant(), Some(32));
        assert_eq!(whole.to_string(), "384*b*s");
    }

    #[test]
    fn quotients_that_would_round_are_refused() {
        assert_eq!(c(10).div_exact(&c(4)), None);
        assert_eq!(s("s").div_exact(&s("b")), None);
        assert_eq!(s("s").div_exact(&c(2)), None);
        assert_eq!(c(0).div_exact(&c(0)), None);
        assert_eq!(s("s").div_exact(&s("s")).unwrap().as_constant(), Some(1));
    }

    #[test]
    fn sums_print_names_first_and_cancel_to_constants() {
        let total = s("past").add(&s("s")).unwrap();
        assert_eq!(total.to_string(), "past+s");
        assert_eq!(total.sub(&s("s")).unwrap(), s("past"));
        assert_eq!(total.sub(&total).unwrap().as_constant(), Some(0));
        let t = s("s").mul(&c(2)).unwrap().add(&c(1)).unwrap();
        assert_eq!(t.to_string(), "2*s+1");
        assert_eq!(c(3).sub(&s("s")).unwrap().to_string(), "-s+3");
        assert_eq!(s("s").mul(&s("s")).unwrap().to_string(), "s*s");
    }

    #[test]
    fn rounded_quotients_are_exact_or_one_canonical_name() {
        let w = s("w");
        assert_eq!(
            w.mul(&c(4))
                .unwrap()
                .rounded_div(2, false)
                .unwrap()
                .to_string(),
            "2*w"
        );
        let odd = w.sub(&c(1)).unwrap();
        assert_eq!(
            odd.rounded_div(2, false).unwrap().to_string(),
            "floor((w-1)/2)"
        );
        assert_eq!(
            odd.rounded_div(2, false),
            w.add(&c(-1)).unwrap().rounded_div(2, false)
        );
        assert_eq!(w.rounded_div(3, true).unwrap().to_string(), "ceil(w/3)");
        assert_eq!(c(7).rounded_div(2, true).unwrap().as_constant(), Some(4));
        assert_eq!(c(-7).rounded_div(2, false).unwrap().as_constant(), Some(-4));
        assert_eq!(w.rounded_div(0, false), None);
    }

    #[test]
    fn overflow_is_unknown_not_wrapped() {
        assert_eq!(c(i64::MAX).add(&c(1)), None);
        assert_eq!(s("s").mul(&c(i64::MAX)).unwrap().mul(&c(2)), None);
    }

    #[test]
    fn only_positive_single_terms_count_as_monomials() {
        assert!(product([&s("b"), &c(3)]).unwrap().is_monomial());
        assert!(!s("b").add(&c(1)).unwrap().is_monomial());
        assert!(!s("b").mul(&c(-1)).unwrap().is_monomial());
    }
}
