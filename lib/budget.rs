//! The memory budget of one tensor, set from `--max-tensor-bytes`: every allocation
//! whose size comes from the model or its inputs is checked against it first.

use std::sync::atomic::{AtomicU64, Ordering};

/// The default memory budget of one tensor: 4 GiB, the size of the largest weight
/// matrices real models carry, and a fraction of a workstation's memory, so that a
/// hostile shape is an error rather than the out-of-memory killer.
pub const DEFAULT_MAX_TENSOR_BYTES: u64 = 4 << 30;

/// Process-wide because kernels, constant folding and input readers all allocate
/// tensors, and the budget is a property of the machine, not of one call. The command
/// lines set it from `--max-tensor-bytes` before doing anything else.
static MAX_TENSOR_BYTES: AtomicU64 = AtomicU64::new(DEFAULT_MAX_TENSOR_BYTES);

pub fn set_max_tensor_bytes(bytes: u64) {
    MAX_TENSOR_BYTES.store(bytes, Ordering::Relaxed);
}

pub fn max_tensor_bytes() -> u64 {
    MAX_TENSOR_BYTES.load(Ordering::Relaxed)
}

/// `4 GiB`, `1.5 MiB`, `17 bytes`: sizes as people read them.
pub fn show_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if n == 1 {
        return "1 byte".into();
    }
    if n < 1024 {
        return format!("{n} bytes");
    }
    let mut v = n as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    let digits = if v.fract() == 0.0 { 0 } else { 1 };
    format!("{v:.digits$} {}", UNITS[unit])
}

/// Parses a byte count as given on the command line: `4294967296`, `4G`, `4GiB`,
/// `512M`, `64k` (binary multiples, whatever the spelling).
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("'{text}' is not a byte count (examples: 4G, 512M, 1048576)"))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(format!("'{text}' has an unknown unit (use K, M, G or T)")),
    };
    n.checked_mul(1u64 << shift)
        .ok_or_else(|| format!("'{text}' is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counts_parse_with_binary_units() {
        // The command line spells the default this way.
        assert_eq!(parse_bytes("4G"), Ok(DEFAULT_MAX_TENSOR_BYTES));
        assert_eq!(parse_bytes("512MiB"), Ok(512 << 20));
        assert_eq!(parse_bytes("64k"), Ok(64 << 10));
        assert_eq!(parse_bytes("1048576"), Ok(1 << 20));
        assert!(parse_bytes("4X").is_err());
        assert!(parse_bytes("-1").is_err());
        assert!(parse_bytes("99999999999T").is_err());
        assert_eq!(show_bytes(4 << 30), "4 GiB");
        assert_eq!(show_bytes(1536 << 10), "1.5 MiB");
        assert_eq!(show_bytes(17), "17 bytes");
    }
}
