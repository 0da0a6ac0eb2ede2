"""The sidebar: its panel, the corpus, the splitter and the index widgets."""
