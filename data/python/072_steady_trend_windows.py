# difficulty: Medium
# topic: simulation
def steady_trend_windows(trend: List[int]) -> int:
    total = 0
    run = 0
    prev_sign = 0
    for i in range(1, len(trend)):
        d = trend[i] - trend[i - 1]
        sign = (d > 0) - (d < 0)
        if sign != 0 and sign == prev_sign:
            run += 1
        else:
            run = 1 if sign != 0 else 0
        prev_sign = sign
        total += run * (trend[i] % 3 + 1)
    return total
