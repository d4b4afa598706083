# difficulty: Medium
# topic: two-pointers-sorting
def ferry_spare_room(loads: List[int], limit: int) -> int:
    cap = abs(limit) + 60
    order = sorted(abs(x) for x in loads)
    light, heavy = 0, len(order) - 1
    spare = 0
    while light <= heavy:
        load = order[heavy]
        if light < heavy and order[light] + order[heavy] <= cap:
            load += order[light]
            light += 1
        heavy -= 1
        spare += cap - load
    return spare
