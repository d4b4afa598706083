# difficulty: Medium
# topic: simulation
def lift_round_trips(riders: List[int], capacity: int) -> int:
    cap = abs(capacity) + 100
    floors_total = 0
    load = 0
    top = 0
    for r in riders:
        w = abs(r)
        if load + w > cap:
            floors_total += 2 * top
            load = 0
            top = 0
        load += w
        top = max(top, w % 10 + 1)
    if load:
        floors_total += 2 * top
    return floors_total
