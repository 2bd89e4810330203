"""The ORM models and the stored vocabulary of kinds and states."""
