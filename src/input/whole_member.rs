//! Whole-member inflate: one gzip member's deflate data decoded in one call by libdeflate.
//!
//! A Common Crawl robotstxt file is two small gzip members per capture, and the streaming
//! decoder (zlib-rs) rebuilds its Huffman tables for every member, a cost paid per member
//! however small it is. libdeflate decodes a whole in-memory deflate stream faster
//! (BENCHMARKS.md, "Decompression: libdeflate for whole members"), but only whole:
//! all of the member's compressed bytes in, room for all of its output. So it is a fast
//! path and nothing more. [`super::gzip_members`] tries it on a member's deflate data
//! when the member starts and the buffered bytes may hold all of it; any failure
//! (output larger than the room, the member running past the buffered bytes, damage)
//! leaves no trace, and the streaming decoder decodes the member from its start as it
//! always did, with its damage handling unchanged. A valid deflate stream has exactly one
//! decoding, so both decoders give the same bytes and the same member end.
//!
//! Public so that `benches/inflate.rs` measures this very wrapper. The one `unsafe`
//! block of the input layer is here: the FFI call, with the pointer and
//! length of two live Rust slices.

use std::ptr::NonNull;

use libdeflate_sys::{
    libdeflate_alloc_decompressor, libdeflate_decompressor, libdeflate_deflate_decompress_ex,
    libdeflate_free_decompressor, libdeflate_result_LIBDEFLATE_SUCCESS,
};

/// A libdeflate decompressor (its tables, about 32 KiB), reused member after member.
pub struct WholeInflater {
    ptr: NonNull<libdeflate_decompressor>,
}

// SAFETY: a libdeflate decompressor holds no thread-local or shared state; it is used by
// one thread at a time (`&mut self`), and moving it between threads is allowed.
unsafe impl Send for WholeInflater {}

impl WholeInflater {
    /// None when libdeflate cannot allocate its state (the streaming decoder then does
    /// all the work).
    pub fn new() -> Option<Self> {
        // SAFETY: no arguments; a null return is handled.
        let ptr = unsafe { libdeflate_alloc_decompressor() };
        NonNull::new(ptr).map(|ptr| Self { ptr })
    }

    /// Decodes the raw deflate stream at the start of `input` into `out`. Some((compressed
    /// bytes it spans, bytes written)) when the stream ends inside `input` and its output
    /// fits in `out`; None otherwise, with `out`'s contents unspecified.
    pub fn inflate(&mut self, input: &[u8], out: &mut [u8]) -> Option<(usize, usize)> {
        let mut used = 0usize;
        let mut written = 0usize;
        // SAFETY: `input` and `out` are live, non-overlapping slices (one shared, one
        // exclusive borrow) whose pointers and lengths are passed as such; libdeflate
        // reads at most `input.len()` bytes and writes at most `out.len()`, and the two
        // result pointers are valid `usize`s for the call's duration.
        let result = unsafe {
            libdeflate_deflate_decompress_ex(
                self.ptr.as_ptr(),
                input.as_ptr().cast(),
                input.len(),
                out.as_mut_ptr().cast(),
                out.len(),
                &mut used,
                &mut written,
            )
        };
        (result == libdeflate_result_LIBDEFLATE_SUCCESS
            && used <= input.len()
            && written <= out.len())
        .then_some((used, written))
    }
}

impl Drop for WholeInflater {
    fn drop(&mut self) {
        // SAFETY: the pointer came from `libdeflate_alloc_decompressor` and is freed once.
        unsafe { libdeflate_free_decompressor(self.ptr.as_ptr()) }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use flate2::{write::DeflateEncoder, Compression, Decompress, FlushDecompress, Status};

    use super::*;

    fn deflate(data: &[u8], level: u32) -> Vec<u8> {
        let mut e = DeflateEncoder::new(Vec::new(), Compression::new(level));
        e.write_all(data).expect("in-memory write");
        e.finish().expect("in-memory finish")
    }

    /// The streaming decoder's reading of the same bytes: (used, output) or None.
    fn streaming(input: &[u8], cap: usize) -> Option<(usize, Vec<u8>)> {
        let mut d = Decompress::new(false);
        let mut out = Vec::with_capacity(cap);
        match d.decompress_vec(input, &mut out, FlushDecompress::Finish) {
            Ok(Status::StreamEnd) => Some((usize::try_from(d.total_in()).ok()?, out)),
            _ => None,
        }
    }

    fn sample(n: usize) -> Vec<u8> {
        let mut v = Vec::with_capacity(n);
        let mut x = 12345u32;
        while v.len() < n {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let line: &[u8] = match x >> 29 {
                0 => b"User-agent: *\n",
                1 => b"Disallow: /private/\n",
                2 => b"Allow: /public/page.html\n",
                3 => b"Sitemap: https://example.com/sitemap.xml\n",
                _ => &[(x >> 8) as u8, (x >> 16) as u8, b'\n'],
            };
            v.extend_from_slice(line);
        }
        v.truncate(n);
        v
    }

    #[test]
    fn gives_the_streaming_decoders_bytes_and_member_end() {
        let mut w = WholeInflater::new().expect("allocates");
        for (n, level) in [(0, 6), (1, 1), (700, 0), (5_000, 1), (70_000, 9)] {
            let data = sample(n);
            let mut input = deflate(&data, level);
            let end = input.len();
            // The next member follows in the same buffer, as in a file.
            input.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xde, 0xad]);
            let mut out = vec![0; n + 10];
            let (used, written) = w.inflate(&input, &mut out).expect("whole stream");
            assert_eq!((used, &out[..written]), (end, &data[..]), "n {n}");
            assert_eq!(streaming(&input, n), Some((end, data)), "n {n}");
        }
    }

    #[test]
    fn refuses_what_it_cannot_finish_so_the_streaming_decoder_takes_over() {
        let mut w = WholeInflater::new().expect("allocates");
        let data = sample(20_000);
        let input = deflate(&data, 6);
        // Output one byte too large for the room.
        assert_eq!(w.inflate(&input, &mut vec![0; data.len() - 1]), None);
        // The member runs past the bytes at hand.
        let mut out = vec![0; data.len()];
        assert_eq!(w.inflate(&input[..input.len() - 1], &mut out), None);
        assert_eq!(w.inflate(&[], &mut out), None);
        // Damage: every single-byte flip either fails in both decoders or decodes to
        // the same bytes and end in both.
        for i in 0..input.len().min(400) {
            let mut bad = input.clone();
            bad[i] ^= 0x5a;
            let whole = w
                .inflate(&bad, &mut out)
                .map(|(used, written)| (used, out[..written].to_vec()));
            assert_eq!(
                whole,
                streaming(&bad, data.len()).filter(|(_, o)| o.len() <= out.len()),
                "flip at {i}"
            );
        }
        // And the decoder is still good afterwards.
        assert_eq!(w.inflate(&input, &mut out), Some((input.len(), data.len())));
    }
}
