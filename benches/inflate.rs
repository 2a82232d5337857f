//! The physical limit of an end-to-end run: inflate every gzip member of a `.warc.gz`
//! and throw the output away.
//!
//! A Common Crawl robotstxt file has two gzip members per capture, so the per-member cost
//! matters as much as the inflate speed. Three ways, one flate2 (zlib-rs) `Decompress`
//! reused in each:
//!
//! - default: raw deflate. The gzip header and trailer (CRC-32, length) are handled here
//!   and the inflater is `reset` between members, which keeps its state and window.
//! - `--gzip-mode`: `Decompress::new_gzip` lets zlib-rs read the gzip framing; flate2's
//!   `reset` of a gzip-mode inflater re-creates the zlib-rs state on every member.
//! - `--whole`: what the pipeline does, with its own wrapper (`input::WholeInflater`): a
//!   member whose deflate data lies within the next 32 KiB and whose output fits 64 KiB
//!   is decoded in one libdeflate call; any other member by the raw-deflate path above.
//!
//! In: the path of a gzip file. Out: one JSON line (mode, members, compressed and inflated
//! bytes, seconds). The driver times the process from outside too, like `gzip -dc`.

use std::fs::File;
use std::io::{self, Read};
use std::process::ExitCode;
use std::time::Instant;

use flate2::{Crc, Decompress, FlushDecompress, Status};
use robots_census::internals::WholeInflater;
use serde_json::json;

/// Largest gzip member header accepted (the optional name and comment fields included).
const HEADER_MAX: usize = 64 * 1024;
const BUF: usize = 1 << 18;

#[derive(Default)]
struct Totals {
    members: u64,
    bytes_in: u64,
    bytes_out: u64,
}

fn main() -> ExitCode {
    let args: Vec<_> = std::env::args_os()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let gzip_mode = args.iter().any(|a| a == "--gzip-mode");
    let whole = args.iter().any(|a| a == "--whole");
    let Some(path) = args.iter().find(|a| !a.to_string_lossy().starts_with("--")) else {
        eprintln!("usage: inflate [--gzip-mode | --whole] FILE.gz");
        return ExitCode::from(2);
    };
    let start = Instant::now();
    let result = File::open(path).and_then(|f| {
        if gzip_mode {
            inflate_gzip_mode(f)
        } else {
            inflate_raw(f, whole)
        }
    });
    match result {
        Ok(t) => {
            let secs = start.elapsed().as_secs_f64();
            let mode = match (gzip_mode, whole) {
                (true, _) => "gzip",
                (false, true) => "whole",
                (false, false) => "raw",
            };
            println!(
                "{}",
                json!({"bench": "inflate", "mode": mode, "members": t.members,
                    "bytes_in": t.bytes_in, "bytes_out": t.bytes_out, "seconds": secs})
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("inflate: {}: {e}", path.to_string_lossy());
            ExitCode::from(1)
        }
    }
}

fn invalid(msg: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg)
}

/// A read buffer that can guarantee a minimum number of contiguous bytes.
struct Input {
    file: File,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    eof: bool,
}

impl Input {
    fn new(file: File) -> Input {
        Input {
            file,
            buf: vec![0; BUF],
            pos: 0,
            end: 0,
            eof: false,
        }
    }

    /// The unread bytes, at least `n` of them unless the file ends first.
    fn ensure(&mut self, n: usize) -> io::Result<&[u8]> {
        if self.end - self.pos < n && !self.eof {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
            while self.end < n.min(self.buf.len()) {
                let read = self.file.read(&mut self.buf[self.end..])?;
                if read == 0 {
                    self.eof = true;
                    break;
                }
                self.end += read;
            }
        }
        Ok(&self.buf[self.pos..self.end])
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.end);
    }
}

/// Length of the gzip member header at the start of `h` (RFC 1952, section 2.3).
fn gzip_header_len(h: &[u8]) -> io::Result<usize> {
    if h.len() < 10 || h[0] != 0x1f || h[1] != 0x8b || h[2] != 8 {
        return Err(invalid("not a gzip member"));
    }
    let flags = h[3];
    let mut i = 10;
    if flags & 4 != 0 {
        let xlen = h
            .get(i..i + 2)
            .ok_or_else(|| invalid("gzip header too long"))?;
        i += 2 + usize::from(u16::from_le_bytes([xlen[0], xlen[1]]));
    }
    for flag in [8u8, 16] {
        if flags & flag != 0 {
            let rest = h.get(i..).ok_or_else(|| invalid("gzip header too long"))?;
            i += 1 + memchr::memchr(0, rest).ok_or_else(|| invalid("gzip header too long"))?;
        }
    }
    if flags & 2 != 0 {
        i += 2;
    }
    if i > h.len() {
        return Err(invalid("gzip header too long"));
    }
    Ok(i)
}

/// Raw deflate with one reused state; header, CRC-32 and length checked here. With
/// `whole`, members that fit go through libdeflate first.
fn inflate_raw(file: File, whole: bool) -> io::Result<Totals> {
    let mut input = Input::new(file);
    let mut output = vec![0u8; BUF];
    let mut inflater = Decompress::new(false);
    let mut crc = Crc::new();
    let mut totals = Totals::default();
    let mut libdeflate = if whole {
        let w =
            WholeInflater::new().ok_or_else(|| io::Error::other("libdeflate allocation failed"))?;
        Some(w)
    } else {
        None
    };
    loop {
        let head = input.ensure(HEADER_MAX)?;
        if head.is_empty() {
            return Ok(totals);
        }
        let header_len = gzip_header_len(head)?;
        input.consume(header_len);
        let mut fast = None;
        if let Some(w) = libdeflate.as_mut() {
            let avail = input.ensure(32 * 1024)?;
            if let Some((used, written)) = w.inflate(avail, &mut output[..64 * 1024]) {
                crc.update(&output[..written]);
                input.consume(used);
                fast = Some((used, written));
            }
        }
        while fast.is_none() {
            let avail = input.ensure(1)?;
            if avail.is_empty() {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "truncated gzip member",
                ));
            }
            let (in_before, out_before) = (inflater.total_in(), inflater.total_out());
            let status = inflater
                .decompress(avail, &mut output, FlushDecompress::None)
                .map_err(io::Error::from)?;
            let consumed = usize::try_from(inflater.total_in() - in_before).unwrap_or(usize::MAX);
            let produced = usize::try_from(inflater.total_out() - out_before).unwrap_or(0);
            crc.update(&output[..produced.min(output.len())]);
            input.consume(consumed);
            if status == Status::StreamEnd {
                break;
            }
            if consumed == 0 && produced == 0 {
                return Err(invalid("inflate made no progress"));
            }
        }
        let trailer = input.ensure(8)?;
        if trailer.len() < 8 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "truncated gzip trailer",
            ));
        }
        let sum = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
        let len = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
        if sum != crc.sum() || len != crc.amount() {
            return Err(invalid("gzip CRC or length mismatch"));
        }
        input.consume(8);
        totals.members += 1;
        let (used, written) = fast.map_or((inflater.total_in(), inflater.total_out()), |(u, w)| {
            (u as u64, w as u64)
        });
        totals.bytes_in += used + header_len as u64 + 8;
        totals.bytes_out += written;
        inflater.reset(false);
        crc.reset();
    }
}

/// zlib-rs reads the gzip framing; `reset(true)` between members.
fn inflate_gzip_mode(file: File) -> io::Result<Totals> {
    let mut input = Input::new(file);
    let mut output = vec![0u8; BUF];
    let mut inflater = Decompress::new_gzip(15);
    let mut totals = Totals::default();
    loop {
        let avail = input.ensure(1)?;
        if avail.is_empty() {
            break;
        }
        let (in_before, out_before) = (inflater.total_in(), inflater.total_out());
        let status = inflater
            .decompress(avail, &mut output, FlushDecompress::None)
            .map_err(io::Error::from)?;
        let consumed = usize::try_from(inflater.total_in() - in_before).unwrap_or(usize::MAX);
        input.consume(consumed);
        if status == Status::StreamEnd {
            totals.members += 1;
            totals.bytes_in += inflater.total_in();
            totals.bytes_out += inflater.total_out();
            inflater.reset(true);
        } else if consumed == 0 && inflater.total_out() == out_before {
            return Err(invalid("inflate made no progress"));
        }
    }
    if inflater.total_in() > 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "truncated gzip member",
        ));
    }
    Ok(totals)
}
