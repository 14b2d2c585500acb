"""Async drivers for card-shoe readers. Never imports table_controller."""
