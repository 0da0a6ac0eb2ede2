"""Who is who, and who may do what: the visitor's identity (signed in through the server's
OpenID Connect provider, or nobody the server can vouch for), the roles the operator grants
(``roles``), and the audit trail of what was opened, spent and deleted (``audit``)."""

from ..surface import lazy_surface

__getattr__, __dir__, __all__ = lazy_surface(__name__, {
    "roles": ["ENV_ROLES", "Access", "Action", "Identity", "Role", "RoleRules", "parse_roles",
              "roles_from_environment"],
    "audit": ["AuditEntry", "AuditTrail", "PostgresAuditTrail", "open_audit_trail"],
})
