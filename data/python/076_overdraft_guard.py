# difficulty: Easy
# topic: simulation
def overdraft_guard(ledger: List[int]) -> int:
    balance = 50
    for amount in ledger:
        if balance + amount < 0:
            balance -= 5
            if balance < 0:
                balance = 0
        else:
            balance += amount
    return balance
