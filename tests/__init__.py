"""Tests for lanswitch."""
