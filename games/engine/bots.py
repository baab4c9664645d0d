def bot_decide(view, level, rules):
    raise NotImplementedError
