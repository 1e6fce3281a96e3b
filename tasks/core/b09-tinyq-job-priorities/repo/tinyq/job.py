"""A unit of work."""

from dataclasses import dataclass, field


@dataclass
class Job:
    id: int
    kind: str
    payload: dict = field(default_factory=dict)
    attempts: int = 0
    max_attempts: int = 3
    last_error: str | None = None

    def to_dict(self):
        return {
            "id": self.id, "kind": self.kind, "payload": self.payload,
            "attempts": self.attempts, "max_attempts": self.max_attempts,
            "last_error": self.last_error,
        }

    @classmethod
    def from_dict(cls, data):
        return cls(**data)
