"""Participation audits of training logs (``convbound audit``): see ``verify.audit.core``."""

from verify.audit.checks import participation_checks
from verify.audit.core import AuditRecord, audit, parse_target

__all__ = ["participation_checks", "AuditRecord", "audit", "parse_target"]
