<?xml version="1.0" encoding="UTF-8"?>
<tileset version="1.10" tiledversion="1.11.0" name="side_view" tilewidth="32" tileheight="32" tilecount="6" columns="0">
 <grid orientation="orthogonal" width="1" height="1"/>
 <tile id="0">
  <properties>
   <property name="nav_side" value="solid"/>
  </properties>
  <image source="orthogonal/tile1.png" width="32" height="32"/>
 </tile>
 <tile id="1">
  <properties>
   <property name="nav_side" value="ladder"/>
  </properties>
  <image source="orthogonal/tile3.png" width="32" height="32"/>
 </tile>
 <tile id="2">
  <properties>
   <property name="nav_side" value="one_way"/>
  </properties>
  <image source="orthogonal/tile5.png" width="32" height="32"/>
 </tile>
 <tile id="3" type="Ladder">
  <image source="orthogonal/tile3.png" width="32" height="32"/>
 </tile>
 <tile id="4">
  <image source="orthogonal/tile2.png" width="32" height="32"/>
  <objectgroup draworder="index" id="2">
   <object id="1" name="collision" x="0" y="0" width="32" height="32"/>
  </objectgroup>
 </tile>
 <tile id="5">
  <image source="orthogonal/tile6.png" width="32" height="32"/>
 </tile>
</tileset>
