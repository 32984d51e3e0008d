"""Models: plain-array estimators (scikit-learn conventions); they never import the renderer or features."""
