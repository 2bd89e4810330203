"""A campaign's rows: create, bulk-load and list campaigns, their life (rename, archive, delete),
document context."""

import lazy_loader

# Each name loads its module on first use: importing one module of this room does not
# import the others (an annotator's page never loads the dashboard's estimators).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "campaigns": [
            "CampaignSummary",
            "active_campaign_names",
            "campaign_exists",
            "campaign_meta",
            "campaign_rows",
            "existing_systems",
            "insert_returning_ids",
            "list_campaigns",
            "next_assignment_position",
            "set_campaign_meta_key",
        ],
        "context": [
            "ContextSegment",
            "DocumentPosition",
            "document_count",
            "document_position",
            "earlier_segments",
            "has_documents",
            "item_documents",
        ],
        "lifecycle": [
            "CampaignArchived",
            "CampaignLifeError",
            "archive_campaign",
            "archived_reason",
            "campaign_events",
            "delete_campaign",
            "ensure_active",
            "rename_campaign",
            "restore_campaign",
        ],
    },
)
