package xpu

// SplitPreAggGroupsMax exposes the message size limit to tests, which
// cannot allocate XPU_PREAGG_GROUPS_BYTES per case.
var SplitPreAggGroupsMax = splitPreAggGroups
