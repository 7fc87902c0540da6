"""Billing queue: retries with exponential backoff."""


class RetryQueue:
    def __init__(self, max_attempts: int = 5) -> None:
        self.max_attempts = max_attempts
