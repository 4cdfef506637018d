//! NumPy's `.npy` format, versions 1 to 3: a magic string, a header that is a Python
//! dict literal (`descr`, `fortran_order`, `shape`), then the raw elements.

use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::kernels::tensor::{Data, Tensor, checked_count};
use crate::onnx::dtype::DType;

const MAGIC: &[u8] = b"\x93NUMPY";

fn descr(dtype: DType) -> Option<&'static str> {
    Some(match dtype {
        DType::F32 => "<f4",
        DType::F64 => "<f8",
        DType::F16 => "<f2",
        DType::I8 => "|i1",
        DType::U8 => "|u1",
        DType::I16 => "<i2",
        DType::U16 => "<u2",
        DType::I32 => "<i4",
        DType::U32 => "<u4",
        DType::I64 => "<i8",
        DType::U64 => "<u8",
        DType::Bool => "|b1",
        _ => return None,
    })
}

fn dtype_of(descr: &str) -> Result<DType> {
    // '=' means native order; this backend runs on little-endian machines only.
    let normalized = descr.replacen('=', "<", 1);
    for d in crate::onnx::dtype::ALL {
        if let Some(known) = self::descr(d)
            && (known == normalized || known.replacen('|', "<", 1) == normalized)
        {
            return Ok(d);
        }
    }
    if descr.starts_with('>') {
        bail!("big-endian data ('{descr}') is not supported");
    }
    bail!("dtype '{descr}' is not supported")
}

/// Parses npy bytes; `name` is used in messages.
pub fn parse(bytes: &[u8], name: &str) -> Result<Tensor> {
    let err = |m: &str| anyhow::anyhow!("'{name}' is not a valid .npy file: {m}");
    if bytes.len() < 10 || &bytes[..6] != MAGIC {
        return Err(err("bad magic"));
    }
    let major = bytes[6];
    let (len, start) = match major {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10usize),
        2 | 3 => {
            if bytes.len() < 12 {
                return Err(err("truncated header"));
            }
            (
                u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
                12,
            )
        }
        v => return Err(err(&format!("unknown version {v}"))),
    };
    let end = start
        .checked_add(len)
        .ok_or_else(|| err("header length overflows"))?;
    let header = bytes
        .get(start..end)
        .ok_or_else(|| err("truncated header"))?;
    let header = std::str::from_utf8(header).map_err(|_| err("header is not text"))?;
    let descr = dict_value(header, "descr").ok_or_else(|| err("no 'descr' in header"))?;
    let descr = descr.trim_matches(|c| c == '\'' || c == '"');
    let fortran = dict_value(header, "fortran_order").ok_or_else(|| err("no 'fortran_order'"))?;
    if fortran.trim() != "False" {
        bail!("'{name}': Fortran-order arrays are not supported; save it in C order");
    }
    let shape_text = dict_value(header, "shape").ok_or_else(|| err("no 'shape' in header"))?;
    let shape = parse_shape(shape_text).ok_or_else(|| err("bad shape"))?;
    let dtype = dtype_of(descr).with_context(|| format!("'{name}'"))?;
    let count = checked_count(&shape).with_context(|| format!("'{name}'"))?;
    let size = count
        .checked_mul(dtype.size())
        .ok_or_else(|| err("data size overflows"))?;
    let data = &bytes[end..];
    if data.len() != size {
        return Err(err(&format!(
            "shape {shape:?} of {descr} needs {size} data bytes, the file has {}",
            data.len()
        )));
    }
    Tensor::new(shape, Data::from_le_bytes(dtype, data)?)
}

/// The text of `key`'s value in a Python dict literal.
fn dict_value<'h>(header: &'h str, key: &str) -> Option<&'h str> {
    let at = header
        .find(&format!("'{key}'"))
        .or_else(|| header.find(&format!("\"{key}\"")))?;
    let rest = &header[at + key.len() + 2..];
    let rest = rest.trim_start().strip_prefix(':')?.trim_start();
    let end = if rest.starts_with('(') {
        rest.find(')')? + 1
    } else {
        rest.find([',', '}']).unwrap_or(rest.len())
    };
    Some(&rest[..end])
}

fn parse_shape(text: &str) -> Option<Vec<usize>> {
    let inner = text.trim().strip_prefix('(')?.strip_suffix(')')?;
    inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.trim_end_matches('L').parse().ok())
        .collect()
}

pub fn read(path: &Path) -> Result<Tensor> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read '{}'", path.display()))?;
    parse(&bytes, &path.display().to_string())
}

/// Serializes `t` as a version 1 `.npy` file; quantized tensors are written as their
/// integers.
pub fn encode(t: &Tensor) -> Result<Vec<u8>> {
    let dtype = t.data.dtype();
    let descr = descr(dtype).ok_or_else(|| anyhow::anyhow!("{dtype} cannot be saved as .npy"))?;
    let shape = match t.shape.len() {
        0 => "()".to_string(),
        1 => format!("({},)", t.shape[0]),
        _ => format!(
            "({})",
            t.shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    // The header ends in a newline and pads the preamble to a multiple of 64 bytes.
    let unpadded = MAGIC.len() + 4 + header.len() + 1;
    header.push_str(&" ".repeat((64 - unpadded % 64) % 64));
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + t.len() * dtype.size());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&t.data.to_le_bytes());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_pads_the_header() {
        let t = Tensor::new(vec![2, 3], Data::F32(vec![1.0, -2.0, 3.5, 0.0, 5.0, 6.0])).unwrap();
        let bytes = encode(&t).unwrap();
        let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        assert_eq!((10 + header_len) % 64, 0);
        assert_eq!(parse(&bytes, "t").unwrap(), t);
        let s = Tensor::new(vec![], Data::I64(vec![7])).unwrap();
        assert_eq!(parse(&encode(&s).unwrap(), "s").unwrap(), s);
    }

    #[test]
    fn refuses_bad_headers_fortran_order_and_short_data() {
        assert!(parse(b"garbage", "g").is_err());
        let t = Tensor::new(vec![2], Data::U8(vec![1, 2])).unwrap();
        let good = encode(&t).unwrap();
        let mut fortran = good.clone();
        let at = fortran.windows(5).position(|w| w == b"False").unwrap();
        fortran[at..at + 5].copy_from_slice(b"True ");
        let e = parse(&fortran, "f").unwrap_err().to_string();
        assert!(e.contains("Fortran"), "{e}");
        let e = parse(&good[..good.len() - 1], "s").unwrap_err().to_string();
        assert!(e.contains("needs 2 data bytes"), "{e}");
        let mut complex = good.clone();
        let at = complex.windows(3).position(|w| w == b"|u1").unwrap();
        complex[at..at + 3].copy_from_slice(b"<c8");
        let e = format!("{:#}", parse(&complex, "c").unwrap_err());
        assert!(e.contains("not supported"), "{e}");
    }
}
