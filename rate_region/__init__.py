"""rate_region"""
