# difficulty: Medium
# topic: digit manipulation
def digit_rebalance(n: int) -> int:
    sign = -1 if n < 0 else 1
    digits = [int(c) for c in str(abs(n))]
    steps = 0
    while len(digits) > 1 and steps < 12:
        hi = max(range(len(digits)), key=lambda i: digits[i])
        lo = min(range(len(digits)), key=lambda i: digits[i])
        if digits[hi] - digits[lo] <= 1:
            break
        digits[hi] -= 1
        digits[lo] += 1
        steps += 1
    value = int(''.join(str(d) for d in digits))
    return sign * (value * 10 + steps)
