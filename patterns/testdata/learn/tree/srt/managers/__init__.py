# Package marker.
