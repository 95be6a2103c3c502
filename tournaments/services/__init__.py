"""Business logic as plain, keyword-only functions: views, admin, API, tasks call these."""
