# difficulty: Hard
# topic: prefix-sums-hashing
def even_majority_stretch(tape: List[int]) -> int:
    first = {0: -1}
    balance = 0
    best_len, best_lo, best_hi = 0, 0, 0
    prefix = [0]
    for i, x in enumerate(tape):
        balance += 1 if x % 2 == 0 else -1
        prefix.append(prefix[-1] + x)
        if balance > 0:
            if i + 1 > best_len:
                best_len, best_lo, best_hi = i + 1, 0, i + 1
        elif balance - 1 in first:
            j = first[balance - 1]
            if i - j > best_len:
                best_len, best_lo, best_hi = i - j, j + 1, i + 1
        if balance not in first:
            first[balance] = i
    return prefix[best_hi] - prefix[best_lo]
