//! Capture ids in the tables read back: a `doc_id` column as ids.

use arrow_array::cast::AsArray;
use arrow_array::Array;

use crate::output::rows::DocId;

/// A `doc_id` column read as [`DocId`]s.
pub(crate) enum Ids<'a> {
    Fixed(&'a arrow_array::FixedSizeBinaryArray),
    Binary(&'a arrow_array::BinaryArray),
}

impl<'a> Ids<'a> {
    /// 16-byte ids, as robots-census writes them (a Parquet UUID, fixed-size binary) or
    /// as Spark does (binary: the Spark SQL sites step), every value 16 bytes long;
    /// `None` for any other column.
    pub(crate) fn of(column: &'a dyn Array) -> Option<Ids<'a>> {
        if let Some(fixed) = column.as_fixed_size_binary_opt() {
            return (fixed.value_length() == 16).then_some(Ids::Fixed(fixed));
        }
        let binary = column.as_binary_opt::<i32>()?;
        let all_16 = (0..binary.len()).all(|i| binary.is_null(i) || binary.value(i).len() == 16);
        all_16.then_some(Ids::Binary(binary))
    }

    pub(crate) fn is_valid(&self, i: usize) -> bool {
        match self {
            Ids::Fixed(a) => a.is_valid(i),
            Ids::Binary(a) => a.is_valid(i),
        }
    }

    pub(crate) fn value(&self, i: usize) -> DocId {
        let bytes = match self {
            Ids::Fixed(a) => a.value(i),
            Ids::Binary(a) => a.value(i),
        };
        // 16 bytes (checked by `Ids::of`) but for a null slot's empty value.
        let mut id = [0u8; 16];
        let n = bytes.len().min(16);
        id[..n].copy_from_slice(&bytes[..n]);
        id
    }
}
