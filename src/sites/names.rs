//! The site names of one pass, in one buffer: a capture and a site hold a [`Name`]
//! (8 bytes) instead of a boxed string each. A boxed name cost its allocation's
//! overhead besides its bytes (a 20-byte name takes a 32-byte chunk of glibc's heap)
//! and 16 bytes in its holder, twice per site in a crawl of http:// and https://
//! captures; the captures are most of the step's peak (BENCHMARKS.md).

use std::num::NonZeroU32;

use super::SitesError;

/// Where a name is in its [`Names`]. It never starts at 0 (the buffer opens with a
/// placeholder byte), so an `Option<Name>` takes no more room than a `Name`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Name {
    start: NonZeroU32,
    len: u32,
}

/// Names one after another. Offsets are 32-bit: a pass holding 4 GiB of site names
/// is an error naming the fix (`--memory-limit` sets what a pass holds).
#[derive(Debug)]
pub struct Names {
    text: String,
    /// The last name pushed, given again for the same name: a site's captures often
    /// follow each other (http:// and https://).
    last: Option<Name>,
}

impl Default for Names {
    fn default() -> Self {
        Names {
            text: String::from("\0"),
            last: None,
        }
    }
}

impl Names {
    /// The name `name`, added unless it is the last one added.
    pub fn push(&mut self, name: &str) -> Result<Name, SitesError> {
        if let Some(last) = self.last.filter(|&last| self.get(last) == name) {
            return Ok(last);
        }
        let start = u32::try_from(self.text.len())
            .ok()
            .and_then(NonZeroU32::new)
            .ok_or(SitesError::TooManyNames)?;
        let len = u32::try_from(name.len()).map_err(|_| SitesError::TooManyNames)?;
        start.checked_add(len).ok_or(SitesError::TooManyNames)?;
        self.text.push_str(name);
        let name = Name { start, len };
        self.last = Some(name);
        Ok(name)
    }

    /// The text of `name`, which must come from this buffer (or one [`Names::append`]
    /// moved into it, through the name it returned).
    pub fn get(&self, name: Name) -> &str {
        let start = name.start.get() as usize;
        &self.text[start..start + name.len as usize]
    }

    /// Moves `other`'s names to the end of these; the function returned gives each of
    /// `other`'s names its place here.
    pub fn append(&mut self, other: Names) -> Result<impl Fn(Name) -> Name, SitesError> {
        // Every start of `other` is at least 1 (its placeholder), which is not copied;
        // when the joined text fits in 32 bits, so do the shift and every moved name.
        let after = other.text.len() - 1 + self.text.len();
        u32::try_from(after).map_err(|_| SitesError::TooManyNames)?;
        let shift = (self.text.len() - 1) as u32;
        self.text.push_str(&other.text[1..]);
        self.last = None;
        Ok(move |name: Name| Name {
            start: name.start.saturating_add(shift),
            len: name.len,
        })
    }

    /// The names of `kept`, in their order, in a buffer of their own (what the sites
    /// of a pass keep once its captures are dropped).
    pub fn keep_only(
        &self,
        kept: impl Iterator<Item = Name>,
    ) -> Result<(Names, Vec<Name>), SitesError> {
        let mut names = Names::default();
        let moved = kept
            .map(|name| names.push(self.get(name)))
            .collect::<Result<_, _>>()?;
        names.text.shrink_to_fit();
        Ok((names, moved))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_back_as_pushed_and_a_repeat_is_stored_once() {
        let mut names = Names::default();
        let a = names.push("a.example").unwrap();
        let again = names.push("a.example").unwrap();
        let empty = names.push("").unwrap();
        let b = names.push("b.example").unwrap();
        assert_eq!(a, again);
        assert_eq!(
            (names.get(a), names.get(empty), names.get(b)),
            ("a.example", "", "b.example")
        );
        assert_eq!(names.text.len(), 1 + 9 + 9);
        assert_eq!(std::mem::size_of::<Option<Name>>(), 8);
    }

    #[test]
    fn appended_names_are_found_through_the_returned_map() {
        let (mut all, mut part) = (Names::default(), Names::default());
        let x = all.push("x.example").unwrap();
        let y = part.push("y.example").unwrap();
        let z = part.push("z").unwrap();
        let moved = all.append(part).unwrap();
        assert_eq!(all.get(x), "x.example");
        assert_eq!((all.get(moved(y)), all.get(moved(z))), ("y.example", "z"));
        // A name equal to the last one of the part is pushed again, not confused.
        let z2 = all.push("z").unwrap();
        assert_eq!(all.get(z2), "z");
        let (kept, at) = all.keep_only([moved(z), x].into_iter()).unwrap();
        assert_eq!((kept.get(at[0]), kept.get(at[1])), ("z", "x.example"));
    }
}
