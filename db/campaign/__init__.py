"""A campaign's rows: create, bulk-load and list campaigns, their life (rename, archive, delete),
document context."""
