"""Evaluation: metrics of predicted main entities against labels, and reports."""
