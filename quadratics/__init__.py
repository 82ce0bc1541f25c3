"""quadratics"""
