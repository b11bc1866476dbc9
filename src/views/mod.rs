//! Views: one typed, borrowed view per event kind of the field reference.
