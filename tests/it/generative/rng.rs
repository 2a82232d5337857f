//! A tiny seeded PRNG (SplitMix64) for the generative test: deterministic across
//! platforms and versions, so a seed and a body index name a body forever.

pub struct Rng(u64);

impl Rng {
    /// The generator of body `index` of the campaign seeded `seed`: every body can
    /// be replayed alone.
    pub fn for_body(seed: u64, index: u64) -> Rng {
        let mut rng = Rng(seed ^ index.wrapping_mul(0xA076_1D64_78BD_642F));
        rng.next_u64();
        rng
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent as usize
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// [`Rng::pick`] for `Copy` items (byte strings), by value.
    pub fn choose<T: Copy>(&mut self, items: &[T]) -> T {
        *self.pick(items)
    }

    pub fn byte(&mut self) -> u8 {
        self.next_u64() as u8
    }
}

#[test]
fn same_seed_and_index_same_numbers() {
    let (mut a, mut b) = (Rng::for_body(7, 3), Rng::for_body(7, 3));
    let (xs, ys): (Vec<u64>, Vec<u64>) = (0..4).map(|_| (a.next_u64(), b.next_u64())).unzip();
    assert_eq!(xs, ys);
    assert_ne!(xs[0], Rng::for_body(7, 4).next_u64());
    assert_ne!(xs[0], Rng::for_body(8, 3).next_u64());
}
