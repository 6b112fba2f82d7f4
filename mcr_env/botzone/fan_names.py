"""Chinese fan names (docs/rules.md §6, the names PKU/Botzone match logs use).

``FAN_ZH[fan]`` is the Chinese name of a :class:`mcr_env.scoring.fans.Fan` value (1..81 in the
rules' order, 82 the botzone profile's 明暗杠); ``ZH_FAN`` maps names back to values.
"""

from __future__ import annotations

_NAMES = (
    "大四喜 大三元 绿一色 九莲宝灯 四杠 连七对 十三幺 清幺九 小四喜 小三元 字一色 四暗刻 "
    "一色双龙会 一色四同顺 一色四节高 一色四步高 三杠 混幺九 七对 七星不靠 全双刻 清一色 "
    "一色三同顺 一色三节高 全大 全中 全小 清龙 三色双龙会 一色三步高 全带五 三同刻 三暗刻 "
    "全不靠 组合龙 大于五 小于五 三风刻 花龙 推不倒 三色三同顺 三色三节高 无番和 妙手回春 "
    "海底捞月 杠上开花 抢杠和 双暗杠 碰碰和 混一色 三色三步高 五门齐 全求人 双箭刻 全带幺 "
    "不求人 双明杠 和绝张 箭刻 圈风刻 门风刻 门前清 平和 四归一 双同刻 双暗刻 暗杠 断幺 "
    "一般高 喜相逢 连六 老少副 幺九刻 明杠 缺一门 无字 边张 嵌张 单钓将 自摸 花牌 明暗杠"
).split()

FAN_ZH: dict[int, str] = {i + 1: name for i, name in enumerate(_NAMES)}
"""Fan value (1..82) -> Chinese name."""
ZH_FAN: dict[str, int] = {name: i for i, name in FAN_ZH.items()}
"""Chinese name -> fan value."""

assert len(FAN_ZH) == 82 and len(ZH_FAN) == 82
