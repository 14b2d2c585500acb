"""atheris harnesses for the input edges (optional long runs; not part of CI)."""
