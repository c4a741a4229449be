"""Tests of lanswitch.fairdeal, one file per module (the dealer-blind ones as test_blind*)."""
