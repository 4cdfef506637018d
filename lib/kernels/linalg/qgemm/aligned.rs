//! Byte buffers that start on a 64-byte boundary, for packed operands: an AMX tile row
//! (64 bytes) that straddles two cache lines loads several times slower than one that
//! does not. A `Vec<u8>` gives no such alignment, so the buffer keeps a little slack
//! and starts at its first aligned byte.

use std::ops::{Deref, DerefMut};

/// Bytes whose first element is 64-byte aligned.
#[derive(Default)]
pub struct Aligned {
    buf: Vec<u8>,
    start: usize,
    len: usize,
}

const ALIGN: usize = 64;

impl Aligned {
    pub const fn new() -> Aligned {
        Aligned {
            buf: Vec::new(),
            start: 0,
            len: 0,
        }
    }

    /// `len` zero bytes.
    pub fn zeroed(len: usize) -> Aligned {
        let mut a = Aligned::new();
        a.resize(len);
        a
    }

    /// Grows or shrinks to `len` bytes as `Vec::resize(len, 0)` does: the bytes kept
    /// keep their values, new ones are zero.
    pub fn resize(&mut self, len: usize) {
        if self.start + len > self.buf.len() {
            let mut buf = vec![0u8; len + ALIGN - 1];
            let start = buf.as_ptr().align_offset(ALIGN).min(ALIGN - 1);
            buf[start..start + self.len].copy_from_slice(self);
            (self.buf, self.start) = (buf, start);
        } else if len > self.len {
            self.buf[self.start + self.len..self.start + len].fill(0);
        }
        self.len = len;
    }

    /// `len` bytes whose values are unspecified, what earlier use left there: for a
    /// buffer kept across calls whose every byte is written before it is read, so that
    /// reusing it costs no zeroing.
    pub fn fit_unzeroed(&mut self, len: usize) {
        if self.start + len > self.buf.len() {
            *self = Aligned::zeroed(len);
        } else {
            self.len = len;
        }
    }
}

impl Clone for Aligned {
    /// A copy in a buffer of its own, aligned again (a cloned `Vec` may sit elsewhere
    /// relative to a line).
    fn clone(&self) -> Aligned {
        let mut a = Aligned::zeroed(self.len);
        a.copy_from_slice(self);
        a
    }
}

impl Deref for Aligned {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.buf[self.start..self.start + self.len]
    }
}

impl DerefMut for Aligned {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.buf[self.start..self.start + self.len]
    }
}

impl std::fmt::Debug for Aligned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Aligned({} bytes)", self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_aligned_and_resizes_like_a_vec() {
        let mut a = Aligned::zeroed(5);
        assert_eq!(a.as_ptr() as usize % ALIGN, 0);
        a.copy_from_slice(&[1, 2, 3, 4, 5]);
        a.resize(3);
        a.resize(200);
        assert_eq!(a.as_ptr() as usize % ALIGN, 0);
        assert_eq!(&a[..5], &[1, 2, 3, 0, 0]);
        assert!(a[3..].iter().all(|&b| b == 0));
        assert_eq!(a.len(), 200);
        assert_eq!(Aligned::new().len(), 0);
        let b = a.clone();
        assert_eq!(b.as_ptr() as usize % ALIGN, 0);
        assert_eq!(&b[..], &a[..]);
    }
}
