"""Participation audits of training logs (``convbound audit``): see ``rate_region.audit.core``."""

from rate_region.audit.checks import participation_checks
from rate_region.audit.core import AuditRecord, audit, parse_target

__all__ = ["participation_checks", "AuditRecord", "audit", "parse_target"]
