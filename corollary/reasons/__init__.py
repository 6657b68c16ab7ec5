"""Reasons beside the TMS: rules and the rule engine (joined to the TMS by one change hook), tools, remembered calls, model claims checked before they become beliefs, and nogoods."""
