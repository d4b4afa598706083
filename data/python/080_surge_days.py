# difficulty: Easy
# topic: simulation
def surge_days(rain: List[int]) -> int:
    alerts = 0
    for i in range(3, len(rain)):
        if 3 * rain[i] > rain[i - 1] + rain[i - 2] + rain[i - 3]:
            alerts += i
    return alerts
