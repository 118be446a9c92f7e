"""Storage: SQLModel tables and keyword-only queries. The only package that talks SQL."""
