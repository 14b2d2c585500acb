"""Shared test configuration. Fixtures that only one area needs live in that area's conftest."""
