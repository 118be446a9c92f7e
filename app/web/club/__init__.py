"""The club's pages under /club, one module per page area; `router` puts them together."""
