"""The ORM models and the stored vocabulary of kinds and states."""

import lazy_loader

# Each name loads its module on first use: importing one module of this room does not
# import the others (an annotator's page never loads the dashboard's estimators).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "admin_models": [
            "AISpan",
            "Account",
            "AppSetting",
            "CampaignEvent",
            "CampaignGrant",
            "InviteEvent",
            "Job",
            "MonitorState",
            "SignInThrottle",
            "StudyLink",
            "StudyParticipant",
            "TutorialAnswer",
        ],
        "document_models": ["DocumentScore"],
        "models": [
            "Annotation",
            "Annotator",
            "Assignment",
            "AttentionCheck",
            "CalibrationSet",
            "Campaign",
            "CampaignSettingChange",
            "Item",
            "MetricBaseline",
            "MetricScore",
            "Output",
            "System",
            "Task",
            "Threshold",
        ],
        "vocabulary": [
            "AnnotationKind",
            "CampaignMode",
            "DOCUMENT_ORDER",
            "Estimand",
            "Sampling",
            "Severity",
            "SlotKind",
            "SlotState",
            "documents_in_order",
        ],
    },
)
