<?xml version="1.0" encoding="UTF-8"?>
<tileset version="1.10" tiledversion="1.11.0" name="fences" tilewidth="32" tileheight="32" tilecount="2" columns="0">
 <grid orientation="orthogonal" width="1" height="1"/>
 <tile id="0">
  <properties>
   <property name="nav_walls" value="north"/>
  </properties>
  <image source="orthogonal/tile3.png" width="32" height="32"/>
 </tile>
 <tile id="1">
  <properties>
   <property name="nav_drops" value="south"/>
  </properties>
  <image source="orthogonal/tile6.png" width="32" height="32"/>
 </tile>
</tileset>
