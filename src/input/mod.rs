//! Input stage: files in, [`Capture`]s out.
