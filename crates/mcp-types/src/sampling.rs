//! TODO(issue 2): filled in by the schema work.
