"""A running record of shared bills, for the monthly summary the bot posts."""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Bill:
    title: str
    payer: str
    cents: int
    people: tuple

    def __post_init__(self):
        if self.cents < 0:
            raise ValueError(f"bill {self.title!r}: cents must not be negative")
        if self.payer not in self.people:
            raise ValueError(f"bill {self.title!r}: payer {self.payer!r} is not in people")


@dataclass
class History:
    bills: list = field(default_factory=list)

    def add(self, title, payer, cents, people):
        bill = Bill(title, payer, cents, tuple(people))
        self.bills.append(bill)
        return bill

    def paid_by(self, person):
        """Cents that `person` paid for the group, over all bills."""
        return sum(bill.cents for bill in self.bills if bill.payer == person)

    def largest(self):
        """The most expensive bill, the earliest on ties; None when there are none."""
        return max(self.bills, key=lambda bill: bill.cents, default=None)

    def members(self):
        """Everyone who took part in any bill, in order of first appearance."""
        seen = []
        for bill in self.bills:
            seen.extend(person for person in bill.people if person not in seen)
        return seen
