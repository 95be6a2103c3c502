"""Tests of the pure rating core (`rating/`)."""
