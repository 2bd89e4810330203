"""accounts and roles, per-campaign grants, and the sign-in throttle table

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-24 19:50:00

``accounts``: named administrator accounts (owner, admin, viewer) with hashed passwords.
``campaign_grants``: which campaigns an admin or viewer may see (the creator, or given by
the owner). ``signin_throttle``: failures and lock times per account and per client, locked
row by row while an attempt is reserved.

Upgrading from the single admin password: the stored hash (app_settings
``admin_password_hash``) becomes the password of the account named ``owner`` (role owner),
so the old password keeps working; it is re-hashed with argon2 at its next sign-in.
"""

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OWNER = "owner"


def upgrade() -> None:
    accounts = op.create_table(
        "accounts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("role", sa.String(length=20), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=False),
        sa.Column("disabled_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("sessions_not_before", sa.BigInteger(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_accounts")),
        sa.UniqueConstraint("name", name=op.f("uq_accounts_name")),
    )
    op.create_table(
        "campaign_grants",
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_campaign_grants_account_id_accounts"),
            ondelete="CASCADE",
        ),  # fmt: skip
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_campaign_grants_campaign_id_campaigns"),
            ondelete="CASCADE",
        ),  # fmt: skip
        sa.PrimaryKeyConstraint("account_id", "campaign_id", name=op.f("pk_campaign_grants")),
    )
    op.create_table(
        "signin_throttle",
        sa.Column("key", sa.String(length=300), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("locked_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_signin_throttle")),
    )
    stored = op.get_bind().scalar(
        sa.text("SELECT value FROM app_settings WHERE key = 'admin_password_hash'")
    )
    if stored:
        op.bulk_insert(
            accounts,
            [{"name": OWNER, "role": "owner", "password_hash": stored,
              "created_at": datetime.now(UTC)}],
        )  # fmt: skip


def downgrade() -> None:
    op.drop_table("signin_throttle")
    op.drop_table("campaign_grants")
    op.drop_table("accounts")
