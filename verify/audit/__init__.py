"""Participation audits of training logs (``convbound audit``): see ``verify.audit.core``."""

from verify.audit.checks import PARTICIPATION_CHECKS
from verify.audit.core import AuditRecord, audit, parse_target

__all__ = ["PARTICIPATION_CHECKS", "AuditRecord", "audit", "parse_target"]
