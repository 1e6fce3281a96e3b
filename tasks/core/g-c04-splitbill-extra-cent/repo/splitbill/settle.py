"""Who pays whom after a trip, with as few transfers as the greedy method finds."""


def balances(payments, people):
    """Net balance in cents per person: paid minus fair share.

    `payments` maps a person to the cents they paid for the group; everyone in `people`
    owes an equal share, and the leftover cents of the division go to the first people.
    """
    total = sum(payments.values())
    base, extra = divmod(total, len(people))
    result = {}
    for index, person in enumerate(people):
        share = base + (1 if index < extra else 0)
        result[person] = payments.get(person, 0) - share
    return result


def settle(payments, people):
    """Transfers (payer, payee, cents) that bring every balance to zero."""
    if not people:
        raise ValueError("people must not be empty")
    unknown = set(payments) - set(people)
    if unknown:
        raise ValueError(f"payments from people not in the group: {sorted(unknown)}")
    owed = balances(payments, people)
    debtors = sorted((p for p in people if owed[p] < 0), key=lambda p: (owed[p], p))
    creditors = sorted((p for p in people if owed[p] > 0), key=lambda p: (-owed[p], p))
    transfers = []
    while debtors and creditors:
        payer, payee = debtors[0], creditors[0]
        amount = min(-owed[payer], owed[payee])
        transfers.append((payer, payee, amount))
        owed[payer] += amount
        owed[payee] -= amount
        if owed[payer] == 0:
            debtors.pop(0)
        if owed[payee] == 0:
            creditors.pop(0)
    return transfers
