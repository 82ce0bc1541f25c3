"""Certificates, rate checks and negative controls, one module per paper.

Each module defines ``CHECKS``: a mapping from check id to a function
``(ctx: Context) -> list[Verification]`` (one simulation may serve a certificate and its
hypothesis-breaking control: an instance just outside a named hypothesis).
"""
