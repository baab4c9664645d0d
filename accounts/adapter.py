from allauth.account.adapter import DefaultAccountAdapter


class AccountAdapter(DefaultAccountAdapter):
    """Hook point for account rules (bans are checked here once moderation lands)."""
