//! Unit tests of the OTLP mapping.
